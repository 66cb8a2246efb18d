/** A data part sent at an A2A base (the hub's, or the memory base), as the kinds that take skill calls want it. */
import { randomUUID } from 'node:crypto';
import { rpc } from './http.js';
import type { Context } from './run.js';
import { taskOf, type SendResult, type Task } from './wire.js';

/**
 * Sends one data part at the hub's base, or at `base` (as `token` when given); these kinds always
 * answer with the task. `configuration` goes with the message (acceptedOutputModes, say). Only the
 * target is read, so an MCP tool (which has no command context) sends through here too.
 */
export async function sendData(
  ctx: Pick<Context<unknown>, 'target'>,
  data: unknown,
  taskId?: string,
  token?: string,
  base = '',
  configuration?: object,
): Promise<Task> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) };
  const task = taskOf(
    (await rpc(
      ctx.target,
      base,
      'SendMessage',
      { message, ...(configuration ? { configuration } : {}) },
      message.messageId,
      token !== undefined ? { token } : {},
    )) as SendResult,
  );
  if (!task) throw new Error('the hub answered with a message, not a task');
  return task;
}
