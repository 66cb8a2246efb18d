import type { FastifyInstance } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import { VERSION } from '../../version.js';

/** Liveness, and the admin token's fingerprint so a client can check the server before sending the token. */
export function healthRoutes(app: FastifyInstance, hub: Hub, adminTokenFingerprint: string): void {
  app.get('/health', { config: { door: 'rest' } }, async () => ({
    status: 'ok',
    version: VERSION,
    store: hub.store.name,
    adminTokenFingerprint,
    uptimeSeconds: hub.status.uptimeSeconds(),
  }));
}
