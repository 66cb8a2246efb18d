import type { FastifyInstance } from 'fastify';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { HubMetrics } from '../../observability/metrics.js';
import { callerOf } from '../http/context.js';

/** GET /metrics in Prometheus text: for the admin token holder, or anyone when the operator made it public. */
export function metricsRoutes(app: FastifyInstance, hub: Hub, metrics: HubMetrics, access: 'admin' | 'public'): void {
  app.get('/metrics', { config: { door: 'rest' } }, async (request, reply) => {
    if (access === 'admin') {
      const caller = await callerOf(hub, request);
      if (caller.kind !== 'admin') {
        throw new HubError(
          caller.kind === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN',
          'GET /metrics needs the admin token',
          {
            hint: 'Send Authorization: Bearer <admin token> (MUSTER_ADMIN_TOKEN, or the file muster serve names at start); or start the hub with --metrics public',
          },
        );
      }
    }
    reply.type(metrics.contentType).header('cache-control', 'no-store');
    return metrics.text();
  });
}
