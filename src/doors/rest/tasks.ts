import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { requireToken } from '../../identity/caller.js';
import type { Hub } from '../../hub/hub.js';
import type { Actor } from '../../hub/actor.js';
import { callerOf, idempotencyKey } from '../http/context.js';
import { pageFields } from './page-query.js';
import { partsAs10 } from './parts.js';
import { isoTime } from '../../wire/iso-time.js';

const HUB_DOOR = { kind: 'hub' } as const;

const mailboxQuery = z.object({ state: z.string().optional(), ...pageFields, agent: z.string().optional() }).strict();

const taskQuery = z
  .object({ historyLength: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').optional() })
  .strict();

const cancelBody = z.object({ reason: z.string().max(2000).optional() }).strict();

/** Tasks over REST: the same services and view as the A2A door, with REST shapes. */
export function taskRoutes(app: FastifyInstance, hub: Hub): void {
  const config = { door: 'rest' as const };
  const actor = async (request: FastifyRequest): Promise<Actor> => ({
    caller: await callerOf(hub, request),
    door: HUB_DOOR,
  });
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;

  for (const box of ['inbox', 'sent'] as const) {
    app.get(`/api/${box}`, { config }, async (request) => {
      const query = parseWith(mailboxQuery, request.query);
      const caller = await callerOf(hub, request);
      // `agent` by its handle or its public id (identity/agent-id.ts).
      if (query.agent !== undefined) query.agent = await hub.identity.handleOf(query.agent);
      return hub.mailboxes.page(caller, box, query);
    });
  }

  app.get('/api/tasks/:id', { config }, async (request) => {
    const { historyLength } = parseWith(taskQuery, request.query);
    return hub.tasks.get(await actor(request), id(request), historyLength);
  });

  // The outbox of a task, for those who may see it: state and last outcome, never headers or bodies.
  app.get('/api/tasks/:id/deliveries', { config }, async (request) => {
    parseWith(z.object({}).strict(), request.query);
    const deliveries = await hub.tasks.deliveries(await actor(request), id(request));
    return {
      deliveries: deliveries.map((d) => ({
        id: d.id,
        channel: d.channel,
        seq: d.seq,
        state: d.state,
        attempts: d.attempts,
        ...(d.lastStatus !== undefined ? { lastStatus: d.lastStatus } : {}),
        ...(d.lastError !== undefined ? { lastError: d.lastError } : {}),
        ...(d.lastAttemptAt !== undefined ? { lastAttemptAt: isoTime(d.lastAttemptAt) } : {}),
        ...(d.state === 'pending' ? { nextAttemptAt: isoTime(d.nextAt) } : {}),
      })),
    };
  });

  // A kind's actions (`respond` on direct tasks, `close` on open calls): the kind names them, the
  // hub refuses one the task's kind lacks. `/cancel` is its own route, which Fastify prefers.
  // Their parts may come in the 0.3 shape: the kinds read 1.0 parts.
  app.post('/api/tasks/:id/:action', { config }, async (request) => {
    const { action } = request.params as { action: string };
    const who = await actor(request);
    requireToken(who.caller, 'A task action'); // before the body is read: no token is a 401, not a validation error
    return hub.tasks.act(who, id(request), action, partsAs10(request.body ?? {}), idempotencyKey(request));
  });

  app.post('/api/tasks/:id/cancel', { config }, async (request) => {
    const who = await actor(request);
    requireToken(who.caller, 'Canceling a task'); // before the body is read: no token is a 401, not a validation error
    const body = parseWith(cancelBody, request.body ?? {});
    return hub.tasks.cancel(who, id(request), body.reason, idempotencyKey(request));
  });
}
