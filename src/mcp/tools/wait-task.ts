/**
 * muster_wait_task: how an MCP agent follows a task without polling. One call is one bounded wait
 * on the task's event log (GET /api/tasks/{id}/wait); its answer carries `lastSeq`, the number to
 * pass as afterSeq next time, so nothing in between is missed.
 */
import { z } from 'zod';
import { LEGACY_STATE } from '../../a2a/states.js';
import type { Task } from '../../a2a/types.js';
import { path, request } from '../../client/http.js';
import { withDeadline } from '../../events/deadline.js';
import { TASK_WAIT } from '../../wire/limits.js';
import { taskAnswer } from '../answers.js';
import { tool } from '../tool.js';

interface Waited {
  task: Task;
  lastSeq: number;
  changed: boolean;
  reached?: boolean;
  timedOut: boolean;
}

/** Beyond the hub's own bound, how long the request may take to come back. */
const GRACE_MS = 10_000;
const { defaultSeconds: WAIT_DEFAULT_SECONDS, maxSeconds: WAIT_MAX_SECONDS } = TASK_WAIT;

const ANSWERED = ['completed', 'failed', 'canceled', 'rejected', 'input-required', 'auth-required'];

export const waitTask = tool({
  name: 'muster_wait_task',
  title: 'Wait for a task to change',
  description:
    `Blocks until a task changes after the event number you last saw (afterSeq), or reaches a state (untilState), for up to timeoutSeconds (at most ${WAIT_MAX_SECONDS}). ` +
    'Use it after muster_send (or any tool that answers a task) instead of calling muster_get_task in a loop: pass the lastSeq it answers as afterSeq next time, so no change is missed.',
  input: z
    .object({
      id: z.string().min(1).describe('The task id'),
      afterSeq: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          'The event number you last saw (lastSeq of the previous wait); leave it out to wait for the next change from now',
        ),
      untilState: z
        .enum(Object.values(LEGACY_STATE) as [string, ...string[]])
        .optional()
        .describe(
          `Wait until the task is in this state (or a final one it cannot leave), ignoring other changes; e.g. ${ANSWERED.join(', ')}`,
        ),
      timeoutSeconds: z
        .number()
        .int()
        .min(0)
        .max(WAIT_MAX_SECONDS)
        .optional()
        .describe(
          `How long to wait at most, in seconds (default ${WAIT_DEFAULT_SECONDS}, at most ${WAIT_MAX_SECONDS}); 0 answers at once`,
        ),
    })
    .strict(),
  readOnly: true,
  async run({ id, afterSeq, untilState, timeoutSeconds }, { target, signal }) {
    const bound = (timeoutSeconds ?? WAIT_DEFAULT_SECONDS) * 1000 + GRACE_MS;
    const waited = (await withDeadline(bound, signal, (ends) =>
      request(target, `${path('api', 'tasks', id)}/wait`, {
        query: { afterSeq, untilState, timeoutSeconds },
        signal: ends,
      }),
    )) as Waited;
    const again = `call muster_wait_task again with afterSeq ${waited.lastSeq}`;
    const next = waited.timedOut ? `nothing yet: ${again}` : undefined;
    const answer = taskAnswer(waited.task, next, {
      lastSeq: waited.lastSeq,
      changed: waited.changed,
      timedOut: waited.timedOut,
      ...(waited.reached !== undefined ? { reached: waited.reached } : {}),
    });
    const lead = waited.timedOut
      ? 'No change yet.'
      : waited.changed
        ? `Changed (event ${waited.lastSeq}).`
        : 'Already there.';
    return { ...answer, text: `${lead} ${answer.text} (lastSeq ${waited.lastSeq})` };
  },
});
