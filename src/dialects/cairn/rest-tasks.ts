/**
 * Cairn's older HTTP routes for review tasks, under /cairn/api/: a page of them by mode
 * (open, evaluated, all), one task, the caller's own contributions, a post and a contribution. Tasks are shown as over JSON-RPC
 * (wire.ts); a refusal is the HTTP status with Cairn's `error` object. Writes take an
 * Idempotency-Key (a post's operation_id serves when there is none).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JsonObject, TaskState } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import { requireToken } from '../../identity/caller.js';
import type { Hub } from '../../hub/hub.js';
import { reviewModule } from '../../kinds/review/review.js';
import type { DialectOptions } from '../dialect.js';
import { readReview, submit } from './methods.js';
import { idempotencyKey } from '../../doors/http/context.js';
import { actorOf, asCursor, dataMessage, pageQuery, sendCall } from './rest-http.js';
import { cairnTask, reviewOf } from './wire.js';

const MODES: Readonly<Record<'open' | 'evaluated' | 'all', readonly TaskState[] | undefined>> = {
  open: ['TASK_STATE_WORKING'],
  evaluated: ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED'],
  all: undefined,
};
const tasksQuery = pageQuery(MODES, 'open');
/** How many of the caller's latest entries `mine` reads. */
const MINE = 50;

export function taskRoutes(scope: FastifyInstance, hub: Hub, options: DialectOptions): void {
  const config = { door: 'rest' as const };
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;

  scope.get('/api/a2a-tasks', { config }, async (request) => {
    const { mode, limit, cursor } = parseWith(tasksQuery, request.query);
    const params = { pageSize: limit, includeArtifacts: true, ...(cursor ? { pageToken: cursor } : {}) };
    const page = await hub.tasks
      .list(await actorOf(hub, request), params, [reviewModule.name], MODES[mode])
      .catch((e: unknown) => Promise.reject(asCursor(e)));
    return {
      mode,
      tasks: page.tasks.map((t) => cairnTask(t, reviewOf(t)!)),
      next_cursor: page.nextPageToken || null,
      total: page.totalSize,
    };
  });

  // The caller's own contributions, latest first, each with its receipt and its task as it stands.
  scope.get('/api/a2a-tasks/mine', { config }, async (request) => {
    const actor = await actorOf(hub, request);
    requireToken(actor.caller, 'Reading your contributions');
    const contributions = (await hub.tasks.ownEntries(actor, MINE)).flatMap((t) => {
      const review = reviewOf(t);
      const task = review && cairnTask(t, review);
      return task
        ? [{ task_id: task.id, contribution: (task.metadata!['cairn'] as JsonObject)['contribution'], task }]
        : [];
    });
    return { contributions };
  });

  scope.get('/api/a2a-tasks/:id', { config }, async (request) =>
    readReview(hub, await actorOf(hub, request), id(request)),
  );

  scope.post('/api/a2a-tasks', { config }, async (request, reply) => {
    const actor = await actorOf(hub, request);
    requireToken(actor.caller, 'Posting a task');
    const key = idempotencyKey(request);
    const task = await submit(
      hub,
      actor,
      dataMessage(request.body ?? {}, key),
      sendCall(options.publicUrl, request),
      key,
    );
    return reply.code(201).send(task);
  });

  scope.post('/api/a2a-tasks/:id/contributions', { config }, async (request, reply) => {
    const actor = await actorOf(hub, request);
    requireToken(actor.caller, 'Contributing');
    const key = idempotencyKey(request);
    const params = dataMessage(request.body ?? {}, key, id(request));
    const task = await submit(hub, actor, params, sendCall(options.publicUrl, request), key);
    return reply.code(201).send(task);
  });
}
