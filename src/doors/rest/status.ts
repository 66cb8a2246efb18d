import type { FastifyInstance } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import type { NodeInfo } from '../../hub/status.js';
import { VERSION } from '../../version.js';

/** The hours GET /api/status counts tasks over. */
const STATUS_HOURS = 24;

const iso = (ms: number) => new Date(ms).toISOString();

/** A node as the status shows it: not its address, which may be an inside one. */
const shown = (node: NodeInfo) => ({ id: node.id, version: node.version, startedAt: iso(node.startedAt), lastSeenAt: iso(node.lastSeenAt), self: node.self });

/** `GET /api/status`: the hub's version, store, live nodes and tasks created per hour, for anyone. */
export function statusRoutes(app: FastifyInstance, hub: Hub): void {
  app.get('/api/status', { config: { door: 'rest' } }, async () => {
    const [nodes, counts] = await Promise.all([hub.status.nodes(), hub.status.tasksPerHour(STATUS_HOURS)]);
    return {
      version: VERSION,
      store: hub.store.name,
      uptimeSeconds: hub.status.uptimeSeconds(),
      nodes: nodes.map(shown),
      tasksPerHour: { hours: STATUS_HOURS, counts },
    };
  });
}
