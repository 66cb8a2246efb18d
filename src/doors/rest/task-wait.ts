/**
 * GET /api/tasks/{id}/wait: a long poll on a task's event log, for clients that cannot hold a
 * stream (the MCP door's muster_wait_task). It answers as soon as the caller sees an event after
 * `afterSeq` (default: the task's latest), or, with `untilState`, once the task is in that state
 * (or in a final one, which it can no longer leave) — else after `timeoutSeconds`, at most
 * TASK_WAIT.maxSeconds (hub/limits.ts). It follows the log (hub.tasks.subscribe), so a change written through any node
 * answers it. Event numbers are the task stream's SSE ids: `lastSeq` is the one to pass next.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isTerminal, LEGACY_STATE, parseState } from '../../a2a/states.js';
import type { StreamResponse, TaskState } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import { withDeadline } from '../../events/deadline.js';
import { HubError } from '../../errors/hub-error.js';
import { callerName } from '../../identity/caller.js';
import type { Hub } from '../../hub/hub.js';
import { TASK_WAIT } from '../../wire/limits.js';
import type { Actor } from '../../hub/actor.js';
import { callerOf } from '../http/context.js';
import type { OpenStreams } from '../http/open-streams.js';

const { defaultSeconds: WAIT_DEFAULT_SECONDS, maxSeconds: WAIT_MAX_SECONDS } = TASK_WAIT;

const stateNames = Object.values(LEGACY_STATE).join(', ');

const waitQuery = z
  .object({
    afterSeq: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').optional(),
    untilState: z
      .string()
      .refine((s) => parseState(s) !== undefined, `must be a task state: ${stateNames} (or a TASK_STATE_* name)`)
      .optional(),
    timeoutSeconds: z.coerce
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(WAIT_MAX_SECONDS, `must be at most ${WAIT_MAX_SECONDS}`)
      .optional(),
    historyLength: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').optional(),
  })
  .strict();

const stateOf = (event: StreamResponse): TaskState | undefined =>
  'statusUpdate' in event ? event.statusUpdate.status.state : 'task' in event ? event.task.status.state : undefined;

interface Waited {
  /** The number of the last event the wait looked at: pass it as afterSeq to wait for what comes next. */
  lastSeq: number;
  /** An event the caller may see came after afterSeq. */
  changed: boolean;
  /** With untilState: the task is in it. */
  reached?: boolean;
  /** What was waited for holds (or can no longer come: the task is final); false when the wait timed out. */
  done: boolean;
}

/** Follows the task until the condition holds or `signal` ends the wait. */
async function waitOn(
  hub: Hub,
  actor: Actor,
  id: string,
  query: z.infer<typeof waitQuery>,
  signal: AbortSignal,
): Promise<Waited> {
  const until = query.untilState === undefined ? undefined : parseState(query.untilState)!;
  const subscription = await hub.tasks.subscribe(actor, id, {
    ...(query.afterSeq !== undefined ? { lastEventId: query.afterSeq } : {}),
    signal,
    refuseTerminal: false,
  });
  let state = subscription.snapshot.status.state;
  let lastSeq: number | undefined;
  let changed = false;
  const settled = () => until !== undefined && (state === until || isTerminal(state));
  if (!settled()) {
    for await (const { seq, event } of subscription.events) {
      lastSeq = seq;
      changed = true;
      state = stateOf(event) ?? state;
      if (until === undefined || settled()) break;
    }
  }
  const done = until !== undefined ? settled() : changed || isTerminal(state);
  return {
    lastSeq: lastSeq ?? subscription.snapshotSeq,
    changed,
    done,
    ...(until !== undefined ? { reached: state === until } : {}),
  };
}

export function taskWaitRoutes(app: FastifyInstance, hub: Hub, open: OpenStreams): void {
  app.get('/api/tasks/:id/wait', { config: { door: 'rest' } }, async (request, reply) => {
    const query = parseWith(waitQuery, request.query);
    const { id } = request.params as { id: string };
    const actor: Actor = { caller: await callerOf(hub, request), door: { kind: 'hub' } };
    // A wait holds one of the caller's stream slots, and ends with its token (401) or the hub's stop.
    const who = callerName(actor.caller);
    const release = open.reserve(who);
    const abort = new AbortController();
    const ended = open.hold(who, abort, actor.caller);
    reply.raw.once('close', () => abort.abort());
    try {
      const { done, ...waited } = await withDeadline(
        (query.timeoutSeconds ?? WAIT_DEFAULT_SECONDS) * 1000,
        abort.signal,
        (signal) => waitOn(hub, actor, id, query, signal),
      );
      // Ended because its token went, or could not be checked (open-streams.ts): the task is not read then.
      if (abort.signal.reason instanceof HubError) throw abort.signal.reason;
      const task = await hub.tasks.get(actor, id, query.historyLength);
      return { task, ...waited, timedOut: !done };
    } finally {
      ended();
      release();
    }
  });
}
