/** A data part sent at the hub's base, as the kinds that take skill calls there want it. */
import { randomUUID } from 'node:crypto';
import { rpc } from './http.js';
import type { Context } from './run.js';
import { taskOf, type SendResult, type Task } from './wire.js';

/** Sends one data part at the hub's base (as `token` when given); these kinds always answer with the task. */
export async function sendData(ctx: Context<unknown>, data: unknown, taskId?: string, token?: string): Promise<Task> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) };
  const task = taskOf((await rpc(ctx.target, '', 'SendMessage', { message }, message.messageId, token)) as SendResult);
  if (!task) throw new Error('the hub answered with a message, not a task');
  return task;
}
