import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseWith } from '../../a2a/validate.js';
import type { Hub } from '../../hub/hub.js';
import type { RestRead } from '../../hub/kind-module.js';
import { callerOf } from '../http/context.js';

/**
 * The REST reads the kinds declare (KindModule.restReads), mounted as they are: the kind answers,
 * the door checks the query, works out the caller when the kind asks, and shapes the answer.
 */
export function kindReadRoutes(app: FastifyInstance, hub: Hub): void {
  const config = { door: 'rest' as const };
  for (const read of hub.kindReads as readonly RestRead<unknown>[]) {
    app.get(read.path, { config }, async (request: FastifyRequest, reply) => {
      const query = read.query ? parseWith(read.query, request.query) : undefined;
      const body = await read.answer({
        caller: () => callerOf(hub, request),
        params: request.params as Record<string, string>,
        query,
      });
      return read.mediaType ? reply.type(read.mediaType).send(JSON.stringify(body)) : body;
    });
  }
}
