/**
 * Where an agent's own endpoint pushes what happens to a task the hub forwarded to it, when its
 * card offers push notifications and no stream: the URL and its token came with the forward
 * (delivery/push-back.ts), and what is posted is brought into that task only (hub/forwards.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Hub } from '../../hub/hub.js';

export function forwardedRoutes(app: FastifyInstance, hub: Hub): void {
  const config = { door: 'rest' as const };
  app.post('/api/forwarded/:taskId/push', { config }, async (request, reply) => {
    const token = request.headers['x-a2a-notification-token'];
    await hub.forwards.pushed(
      (request.params as { taskId: string }).taskId,
      typeof token === 'string' ? token : undefined,
      request.body,
    );
    return reply.code(204).send();
  });
}
