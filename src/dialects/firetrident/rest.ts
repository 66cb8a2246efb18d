/**
 * The colony's REST routes its clients use beside A2A: declare an intent, read one, withdraw
 * one, and ask why a path changed (which landed intents wrote it). Each runs the same operation
 * or hub read as the A2A door at the colony's space base; refusals are the REST API's bodies.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Task } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import type { CallContext } from '../../doors/a2a/methods.js';
import { baseUrl, callerOf, idempotencyKey } from '../../doors/http/context.js';
import { whyOf, whyQuery } from '../../doors/rest/space-why.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import { invoke } from '../../operations/operations.js';
import { declaredTask } from './methods.js';
import { fireFacts, landingData, landingOf } from './wire.js';
import { factsOf } from './words.js';

const declareBody = z
  .object({
    title: z.string("must be the intent's title, one line").trim().min(1, 'must not be empty'),
    why: z.string('must be text').optional(),
    footprint: z.unknown(),
    acceptance: z.unknown().optional(),
    priority: z.unknown().optional(),
    force: z.unknown().optional(),
  })
  .strict();
const withdrawBody = z.object({ reason: z.string('must be text').trim().min(1).max(2000).optional() }).strict();

/** An intent as the colony's REST routes show it: its fields, its status word and its landing. */
export function restIntent(task: Task, colony: string, base: string) {
  const facts = factsOf(task);
  const landing = landingData(task, colony, base);
  return Object.assign(
    { id: task.id },
    fireFacts(task, colony, base),
    { state: task.status.state, updatedAt: task.status.timestamp },
    facts.why ? { why: facts.why } : {},
    { footprint: facts.footprint ?? [] },
    facts.acceptance ? { acceptance: facts.acceptance } : {},
    facts.priority !== undefined ? { priority: facts.priority } : {},
    facts.worker ? { worker: facts.worker } : {},
    facts.cancelReason ? { withdrawReason: facts.cancelReason } : {},
    landing ? { landing } : {},
  );
}

/** One landed intent that wrote `path`: which, why, and the worker's note on that file. */
function whyEntry(task: Task, path: string, colony: string, base: string) {
  const facts = factsOf(task);
  const landing = landingOf(task)?.facts;
  const note = landing?.files?.find((f) => f.path === path)?.why;
  return Object.assign(
    { intent: task.id, title: facts.title ?? '' },
    facts.why ? { why: facts.why } : {},
    note ? { note } : {},
    { landing: task.id },
    landing?.commit ? { commit: landing.commit } : {},
    landing?.landedAt ? { landedAt: landing.landedAt } : {},
    landing?.worker ? { worker: landing.worker } : {},
    { url: fireFacts(task, colony, base)['url'] },
  );
}

export function colonyRestRoutes(scope: FastifyInstance, hub: Hub, publicUrl: URL | undefined): void {
  const config = { door: 'rest' as const };
  const colonyOf = (request: FastifyRequest) => (request.params as { space: string }).space;
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const base = (request: FastifyRequest) => baseUrl(publicUrl, request);
  const actor = async (request: FastifyRequest): Promise<Actor> => {
    const colony = colonyOf(request);
    await hub.spaces.require(colony);
    return { caller: await callerOf(hub, request), door: { kind: 'space', name: colony } };
  };
  // A REST call neither streams nor waits: its connection's end is never asked for.
  const call = (request: FastifyRequest): CallContext => ({
    base: base(request),
    signal: new AbortController().signal,
    reserveStream: () => () => {},
  });
  const shown = (request: FastifyRequest) => (task: Task) => restIntent(task, colonyOf(request), base(request));

  scope.post('/intents', { config }, async (request, reply) => {
    const who = await actor(request);
    const { title, why, ...options } = parseWith(declareBody, request.body ?? {});
    const messageId = idempotencyKey(request) ?? randomUUID();
    const params = {
      message: {
        messageId,
        role: 'ROLE_USER',
        parts: [{ text: why ? `${title}\n${why}` : title }, { data: options }],
      },
      configuration: { returnImmediately: true },
    };
    const intent = shown(request)(declaredTask(await invoke('SendMessage', hub, who, params, call(request))));
    return reply.code('duplicateOf' in intent ? 200 : 201).send(intent);
  });

  scope.get('/intents/:id', { config }, async (request) =>
    shown(request)(await invoke('GetTask', hub, await actor(request), { id: idOf(request) }, call(request))),
  );

  scope.post('/intents/:id/withdraw', { config }, async (request) => {
    const who = await actor(request);
    const { reason } = parseWith(withdrawBody, request.body ?? {});
    const params = { id: idOf(request), ...(reason ? { metadata: { reason } } : {}) };
    return shown(request)(await invoke('CancelTask', hub, who, params, call(request)));
  });

  scope.get('/why', { config }, async (request) => {
    const colony = colonyOf(request);
    const query = parseWith(whyQuery, request.query);
    const { tasks, hasMore } = await whyOf(hub, request, colony, query);
    return {
      colony,
      path: query.path,
      intents: tasks.map((t) => whyEntry(t, query.path, colony, base(request))),
      hasMore,
    };
  });
}
