/**
 * A task answered with a plain Message: an agent may answer a new task with a Message instead
 * of a task lifecycle (A2A 1.0). The task still records it (history and status message) and is
 * COMPLETED, and `metadata.muster.reply` names the Message, so every door can tell that the
 * answer to the sender is that Message rather than the task.
 */
import type { Message, Task } from '../a2a/types.js';
import type { Change } from './kind.js';

/** The change that ends a task with `message` as its answer. */
export function replyChange(message: Message): Change {
  return {
    state: 'TASK_STATE_COMPLETED',
    statusMessage: message,
    messages: [message],
    artifacts: [],
    metadata: { muster: { reply: message.messageId } },
  };
}

/** The Message that is the answer to the task's sender, when the task was answered with one. */
export function replyOf(task: Task): Message | undefined {
  const id = (task.metadata?.['muster'] as { reply?: unknown } | undefined)?.reply;
  if (typeof id !== 'string') return undefined;
  if (task.status.message?.messageId === id) return task.status.message;
  return task.history?.find((m) => m.messageId === id);
}
