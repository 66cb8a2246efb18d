import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import type { OperatorRecord } from '../../store/store.js';
import { callerOf } from '../http/context.js';
import { tokenView } from './agents.js';
import { isoTime } from '../../wire/iso-time.js';

const operatorView = (o: OperatorRecord & { agents?: string[] }) => ({
  handle: o.handle,
  ...(o.name ? { name: o.name } : {}),
  createdAt: isoTime(o.createdAt),
  ...(o.agents ? { agents: o.agents } : {}),
});

/** Operators over REST. A token appears in exactly two answers: creation and rotation. */
export function operatorRoutes(app: FastifyInstance, hub: Hub): void {
  const config = { door: 'rest' as const };
  const handleOf = (request: FastifyRequest) => (request.params as { handle: string }).handle;

  app.post('/api/operators', { config }, async (request, reply) => {
    const { operator, token } = await hub.operators.create(await callerOf(hub, request), request.body ?? {});
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send(Object.assign(operatorView({ ...operator, agents: [] }), { token }));
  });

  app.get('/api/operators/:handle', { config }, async (request) =>
    operatorView(await hub.operators.profile(await callerOf(hub, request), handleOf(request))),
  );

  app.post('/api/operators/:handle/token', { config }, async (request, reply) => {
    const token = await hub.operators.rotate(await callerOf(hub, request), handleOf(request));
    return reply.header('cache-control', 'no-store').send({ token });
  });

  app.get('/api/operators/:handle/tokens', { config }, async (request) => ({
    tokens: (await hub.operators.tokens(await callerOf(hub, request), handleOf(request))).map(tokenView),
  }));

  app.delete('/api/operators/:handle/tokens/:tokenId', { config }, async (request, reply) => {
    await hub.operators.revoke(
      await callerOf(hub, request),
      handleOf(request),
      (request.params as { tokenId: string }).tokenId,
    );
    return reply.code(204).send();
  });
}
