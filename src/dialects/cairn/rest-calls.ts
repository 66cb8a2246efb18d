/**
 * Cairn's open-call routes and agent registration, under /cairn/api/: a page of calls by mode
 * (open, closed, all), one call with its public answers, an answer (`cairn.call.response/0.1`,
 * read by the open-call kind), and POST agent/register, which is Muster's registration under the
 * same rules as POST /api/agents.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JsonObject, Message, Task, TaskState } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import { baseUrl, callerOf } from '../../doors/http/context.js';
import { HubError } from '../../errors/hub-error.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import { requireToken } from '../../identity/caller.js';
import { publicProfile } from '../../identity/profile-view.js';
import { callModule } from '../../kinds/call/call.js';
import { invoke } from '../../operations/operations.js';
import type { DialectOptions } from '../dialect.js';
import { idempotencyKey } from '../../doors/http/context.js';
import { actorOf, asCursor, dataMessage, pageQuery, sendCall } from './rest-http.js';

const MODES: Readonly<Record<'open' | 'closed' | 'all', readonly TaskState[] | undefined>> = {
  open: ['TASK_STATE_WORKING'],
  closed: ['TASK_STATE_COMPLETED'],
  all: undefined,
};
const callsQuery = pageQuery(MODES, 'open');

const musterOf = (task: Task) => (task.metadata?.['muster'] ?? {}) as { kind?: string; call?: JsonObject };

/** A call as Cairn lists it: its question, and whether it still takes answers. */
const callView = (task: Task) => ({
  id: task.id,
  ...musterOf(task).call,
  status: task.status.state === 'TASK_STATE_WORKING' ? 'open' : 'closed',
  updated_at: task.status.timestamp,
});

/** A public answer: its id and what it says (answers never name their author). */
const answerOf = (message: Message) => {
  const id = (message.metadata?.['muster'] as { answer?: string } | undefined)?.answer;
  return id === undefined ? undefined : { id, ...(message.parts[0]?.data as JsonObject) };
};

const answersOf = (task: Task) =>
  (task.history ?? []).map(answerOf).filter((a): a is NonNullable<typeof a> => a !== undefined);

async function readCall(hub: Hub, actor: Actor, id: string): Promise<Task> {
  const task = await hub.tasks.get(actor, id);
  if (musterOf(task).kind !== callModule.name)
    throw new HubError('TASK_NOT_FOUND', `No open call ${id} here`, { hint: 'GET api/a2a-calls lists them' });
  return task;
}

export function callRoutes(scope: FastifyInstance, hub: Hub, options: DialectOptions): void {
  const config = { door: 'rest' as const };
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;

  scope.get('/api/a2a-calls', { config }, async (request) => {
    const { mode, limit, cursor } = parseWith(callsQuery, request.query);
    const params = { pageSize: limit, historyLength: 0, ...(cursor ? { pageToken: cursor } : {}) };
    const page = await hub.tasks
      .list(await actorOf(hub, request), params, [callModule.name], MODES[mode])
      .catch((e: unknown) => Promise.reject(asCursor(e)));
    return { mode, calls: page.tasks.map(callView), next_cursor: page.nextPageToken || null, total: page.totalSize };
  });

  scope.get('/api/a2a-calls/:id', { config }, async (request) => {
    const task = await readCall(hub, await actorOf(hub, request), id(request));
    return { ...callView(task), answers: answersOf(task) };
  });

  scope.post('/api/a2a-calls/:id/responses', { config }, async (request, reply) => {
    const actor = await actorOf(hub, request);
    requireToken(actor.caller, 'Answering a call');
    await readCall(hub, actor, id(request));
    const key = idempotencyKey(request);
    const params = dataMessage(request.body ?? {}, key, id(request));
    const call = Object.assign(sendCall(options.publicUrl, request), key === undefined ? {} : { operationKey: key });
    const result = await invoke('SendMessage', hub, actor, params, call);
    const task = 'task' in result ? result.task : await readCall(hub, actor, id(request));
    const mine = (task.history ?? []).find((m) => m.messageId === params.message.messageId);
    return reply.code(201).send({ call_id: task.id, response: mine && answerOf(mine), call: callView(task) });
  });

  scope.post('/api/agent/register', { config }, async (request, reply) => {
    const caller = await callerOf(hub, request);
    const { agent, token } = await hub.identity.register(caller, request.body ?? {}, request.ip);
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send(Object.assign(publicProfile(agent, baseUrl(options.publicUrl, request)), { token }));
  });
}
