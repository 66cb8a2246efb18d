/** The A2A calls every step makes, through the CLI's own HTTP client: SendMessage and GetTask. */
import { randomUUID } from 'node:crypto';
import type { Part, Task } from '../../a2a/types.js';
import { rpc, type Target } from '../http.js';

/** SendMessage at `base` (an agent's base, or '' for the hub's own); the hub always answers a task here. */
export async function sendMessage(
  target: Target,
  base: string,
  parts: Part[],
  taskId?: string,
  configuration?: { returnImmediately: boolean },
): Promise<Task> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts, ...(taskId ? { taskId } : {}) };
  const result = (await rpc(
    target,
    base,
    'SendMessage',
    { message, ...(configuration ? { configuration } : {}) },
    message.messageId,
  )) as { task?: Task };
  if (!result?.task) throw new Error('the hub answered SendMessage with a message, not a task');
  return result.task;
}

/** A text message, answered at once: the demo's agent answers after it, so a blocking send would wait out the hub's wait. */
export const sendText = (target: Target, base: string, text: string, taskId?: string) =>
  sendMessage(target, base, [{ text }], taskId, { returnImmediately: true });
export const sendData = (target: Target, data: unknown, taskId?: string) => sendMessage(target, '', [{ data }], taskId);

export const getTask = async (target: Target, base: string, id: string): Promise<Task> =>
  (await rpc(target, base, 'GetTask', { id })) as Task;

/** TASK_STATE_INPUT_REQUIRED as people read it: input-required. */
export const stateName = (task: Task): string =>
  task.status.state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

/** The end of an id (their starts are a timestamp), enough to tell tasks apart in a transcript. */
export const shortId = (id: string): string => (id.length > 12 ? `…${id.slice(-8)}` : id);

export const agentBase = (handle: string) => `agents/${encodeURIComponent(handle)}/`;
