import type { FastifyInstance } from 'fastify';
import type { Hub } from '../../hub/hub.js';

/** `GET /api/status`: the hub's version, store, live nodes and tasks created per hour, for anyone (hub/status.ts). */
export function statusRoutes(app: FastifyInstance, hub: Hub): void {
  app.get('/api/status', { config: { door: 'rest' } }, () => hub.status.report());
}
