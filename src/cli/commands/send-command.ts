/**
 * `muster send`: a message to an agent, as a new task or a follow-up. By default the hub answers
 * at once and the command says how to follow the task. `--wait` holds the send for the hub's own
 * blocking wait (MUSTER_BLOCKING_WAIT_S); `--wait N` follows the task for up to N seconds. Either
 * way the request's timeout is longer than the wait (http.ts, timeoutAround), so an answer that
 * comes late is read, never taken for an unreachable hub and sent again as a second task.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { UsageError } from '../../client/errors.js';
import { partsText, renderSent } from '../../client/format.js';
import { LONGEST_HUB_WAIT_S, path, request, rpc, timeoutAround, type Target } from '../../client/http.js';
import { wholeNumber } from '../../client/paging.js';
import { action, client, type Context } from '../../client/run.js';
import { followUntilSettled } from '../../client/settle.js';
import { settles } from '../../client/states.js';
import { taskOf, withWaitNote, type Message, type Part, type SendResult, type Task } from '../../client/wire.js';

interface SendOptions {
  task?: string;
  context?: string;
  data?: string;
  messageId?: string;
  /** true: the hub's own wait; a number: follow the task for that many seconds. */
  wait?: true | number;
}

/** The most `--wait N` follows a task: an hour; past that, `muster watch` is the tool. */
const MOST_WAIT_S = 3600;

function parseJson(value: string, option: string): unknown {
  try {
    return JSON.parse(value);
  } catch (e) {
    throw new UsageError(
      `${option} is not valid JSON: ${(e as Error).message}`,
      `For example ${option} '{"priority":"high"}'`,
      'BAD_JSON',
    );
  }
}

function messageOf(options: SendOptions, text: string[]): Message {
  const parts: Part[] = [{ text: text.join(' ') }];
  if (options.data !== undefined) parts.push({ data: parseJson(options.data, '--data') });
  return {
    messageId: options.messageId ?? randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(options.task !== undefined ? { taskId: options.task } : {}),
    ...(options.context !== undefined ? { contextId: options.context } : {}),
  };
}

/** The send's answer, after the wait asked for: `true`, the hub's own; N, N seconds of following the task; none, at once. */
function sendAndWait(target: Target, base: string, message: Message, wait: SendOptions['wait']): Promise<SendResult> {
  if (wait === true) return heldSend(target, base, message);
  return followedSend(target, base, message, wait);
}

/** A blocking send: the hub holds it for its wait, and the request outlasts the longest wait a hub may be set to. */
async function heldSend(target: Target, base: string, message: Message): Promise<SendResult> {
  const held = (await rpc(target, base, 'SendMessage', { message }, message.messageId, {
    timeoutMs: timeoutAround(LONGEST_HUB_WAIT_S),
  })) as SendResult;
  // An agent that answered with a plain Message: shown as its task, as every other answer is.
  const repliedTo = 'message' in held ? held.message.taskId : undefined;
  return repliedTo ? { task: await taskNow(target, repliedTo) } : held;
}

/** A send answered at once, then, for `--wait N`, the task followed up to N seconds and read as it stands. */
async function followedSend(
  target: Target,
  base: string,
  message: Message,
  waitS: number | undefined,
): Promise<SendResult> {
  const sent = (await rpc(
    target,
    base,
    'SendMessage',
    { message, configuration: { returnImmediately: true } },
    message.messageId,
  )) as SendResult;
  const task = taskOf(sent);
  if (waitS === undefined || !task) return sent;
  if (!settles(task.status.state)) await followUntilSettled(target, base, task.id, waitS);
  const now = await taskNow(target, task.id);
  return { task: settles(now.status.state) ? now : withWaitNote(now, waitS) };
}

const taskNow = async (target: Target, id: string): Promise<Task> =>
  (await request(target, `api/tasks/${path(id)}`)) as Task;

export function sendCommand(program: Command): void {
  client(
    program,
    'send <handle> <text...>',
    'send a message to an agent: a new task, or a follow-up with --task; answers at once, or waits with --wait',
  )
    .option('--task <taskId>', 'follow up on this task')
    .option('--context <contextId>', 'the conversation (context) to send in')
    .option('--data <json>', 'add a data part holding this JSON')
    .option('--message-id <id>', 'the message id (default a random UUID); resending the same id is idempotent')
    .option(
      '--wait [seconds]',
      `wait for the answer: up to the hub's blocking wait (MUSTER_BLOCKING_WAIT_S), or up to this many seconds (at most ${MOST_WAIT_S})`,
      wholeNumber(1, MOST_WAIT_S),
    )
    .action(
      action(async (ctx: Context<SendOptions>, handle: string, text: string[]) => {
        const answer = await sendAndWait(
          ctx.target,
          `agents/${path(handle)}/`,
          messageOf(ctx.options, text),
          ctx.options.wait,
        );
        const task = taskOf(answer);
        if (task) ctx.show(task, renderSent);
        else ctx.show((answer as { message: Message }).message, (m) => partsText(m.parts));
      }),
    );
}
