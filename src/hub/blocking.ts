/**
 * A blocking send (A2A's SendMessage without returnImmediately): the answer waits until the task
 * ends or needs the sender, for as long as its kind says (Kind.blockingWaitMs), following the
 * event log, so it ends on whichever node the answer is written.
 */
import type { SendMessageConfiguration, Task } from '../a2a/types.js';
import { withDeadline } from '../events/deadline.js';
import { settles, type Following } from './following.js';
import type { Kind, KindContext } from './kind.js';

export interface BlockingSend {
  task: Task;
  kind: Kind | undefined;
  ctx: KindContext;
  configuration: SendMessageConfiguration | undefined;
  /** Fires when the caller stops waiting (its connection closed); asked only when the send blocks. */
  gone?: () => AbortSignal;
  /** The task again, as the caller reads it. */
  reread: () => Promise<Task>;
}

/** Whether someone could answer an agent, as a new task's own write found (TaskCreated.answerable). */
export interface Answerable {
  agent: string;
  answerable: boolean;
}

/** The send's context, whose canAnswer gives what the write found for its agent instead of reading again. */
export function answeredIn(ctx: KindContext, heard: Answerable | undefined): KindContext {
  if (!heard) return ctx;
  const canAnswer = (handle: string) => (handle === heard.agent ? Promise.resolve(heard.answerable) : ctx.reads.canAnswer(handle));
  return Object.assign({}, ctx, { reads: Object.assign({}, ctx.reads, { canAnswer }) });
}

/** The send's answer: at once when it does not block, else the task once it settles or the wait ends. */
export async function blockingAnswer(following: Following, send: BlockingSend): Promise<Task> {
  const { task, kind, configuration } = send;
  // returnImmediately is checked first: a send that does not block makes no read to decide it.
  if (configuration?.returnImmediately || !kind?.blockingWaitMs || settles(task.status.state)) return task;
  const waitMs = await kind.blockingWaitMs(task, send.ctx);
  if (!waitMs) return task;
  await withDeadline(waitMs, send.gone?.(), (until) => following.waitToSettle(task.id, until));
  return send.reread();
}
