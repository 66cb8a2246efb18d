/**
 * A blocking send (A2A's SendMessage without returnImmediately): the answer waits until the task
 * ends or needs the sender, for as long as its kind says (Kind.blockingWaitMs), following the
 * event log, so it ends on whichever node the answer is written. When the wait runs out first, the
 * answer is the task as it stands, and says so (WaitNote).
 */
import type { SendMessageConfiguration, Task } from '../a2a/types.js';
import { withDeadline } from '../events/deadline.js';
import { settles, type Following } from './following.js';
import type { Kind } from './kind.js';

export interface BlockingSend {
  task: Task;
  kind: Kind | undefined;
  configuration: SendMessageConfiguration | undefined;
  /** Fires when the caller stops waiting (its connection closed); asked only when the send blocks. */
  gone?: () => AbortSignal;
  /** The task again, as the caller reads it. */
  reread: () => Promise<Task>;
}

/**
 * `metadata.muster.wait` on a blocking send's answer (never stored): the wait ran out before the
 * task ended or needed the sender, after `seconds`; the task goes on, to be followed.
 */
export interface WaitNote {
  ranOut: true;
  seconds: number;
}

/** The send's answer: at once when it does not block, else the task once it settles or the wait ends. */
export async function blockingAnswer(following: Following, send: BlockingSend): Promise<Task> {
  const { task, kind, configuration } = send;
  if (configuration?.returnImmediately || settles(task.status.state)) return task;
  const waitMs = kind?.blockingWaitMs?.(task);
  if (!waitMs) return task;
  await withDeadline(waitMs, send.gone?.(), (until) => following.waitToSettle(task.id, until));
  const answer = await send.reread();
  return settles(answer.status.state) ? answer : withWaitNote(answer, { ranOut: true, seconds: waitMs / 1000 });
}

/** The task with the note beside what its `metadata.muster` already says (a copy: the read is not changed). */
function withWaitNote(task: Task, wait: WaitNote): Task {
  const muster = Object.assign({}, task.metadata?.['muster'] as object | undefined, { wait });
  return Object.assign({}, task, { metadata: Object.assign({}, task.metadata, { muster }) });
}
