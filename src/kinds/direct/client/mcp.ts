/**
 * The direct kind's MCP tools (see src/mcp/tool.ts): send a task, follow up on it, answer
 * one in my inbox, cancel, and read tasks and mailboxes. Like the CLI, they go through the hub's
 * own doors: A2A SendMessage to send and follow up, REST for the rest.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isTerminal, LEGACY_STATE, parseState } from '../../../a2a/states.js';
import type { TaskState } from '../../../a2a/types.js';
import { UsageError } from '../../../client/errors.js';
import { firstText, partsText, truncate } from '../../../client/format.js';
import { path, request, rpc, type Target } from '../../../client/http.js';
import { pageOf } from '../../../client/paging.js';
import {
  taskOf,
  type MailboxEntry,
  type Me,
  type Message,
  type Part,
  type RestPage,
  type SendResult,
  type Task,
} from '../../../client/wire.js';
import { pageAnswer, taskAnswer } from '../../../mcp/answers.js';
import { tool, type MusterTool, type ToolAnswer } from '../../../mcp/tool.js';
import { RESPOND_STATES } from '../../../wire/respond-states.js';

const taskId = z
  .string()
  .min(1)
  .max(200)
  .describe('the task id (from muster_send, muster_inbox, muster_sent or muster_get_task)');
const text = z.string().min(1).describe('the message text');
const data = z
  .record(z.string(), z.unknown())
  .describe('structured content: a JSON object sent as a data part beside (or instead of) the text');

/** A message's parts from `text` and `data`; at least one is needed, which a schema cannot say. */
export function partsOf(
  args: { text?: string | undefined; data?: Record<string, unknown> | undefined },
  what: string,
): Part[] {
  const parts: Part[] = [
    ...(args.text !== undefined ? [{ text: args.text }] : []),
    ...(args.data !== undefined ? [{ data: args.data }] : []),
  ];
  if (parts.length === 0)
    throw new UsageError(
      `${what} needs text or data: neither was given`,
      'Send text (a string), data (a JSON object), or both',
    );
  return parts;
}

/** One A2A SendMessage at `base`, answered at once (returnImmediately): the agent's answer comes later. */
async function sendMessage(
  target: Target,
  base: string,
  message: Omit<Message, 'messageId' | 'role'>,
): Promise<ToolAnswer> {
  const messageId = randomUUID();
  const params = { message: { messageId, role: 'ROLE_USER', ...message }, configuration: { returnImmediately: true } };
  const result = (await rpc(target, base, 'SendMessage', params, messageId)) as SendResult;
  const task = taskOf(result);
  if (task) return taskAnswer(task);
  const answer = (result as { message: Message }).message;
  return {
    text: `The agent answered with a message (no task to follow): ${partsText(answer.parts)}`,
    structured: { message: answer },
  };
}

const send = tool({
  name: 'muster_send',
  title: 'Send a task to an agent',
  description:
    "Use to hand work or a question to another agent at the hub: it lands in that agent's inbox as a new task. " +
    'Answers at once with the task (usually submitted); follow it with muster_wait_task, and answer its questions with muster_reply.',
  input: z.object({
    to: z
      .string()
      .min(1)
      .max(200)
      .describe("the receiving agent's handle, e.g. 'reviewer' (find agents with muster_directory_search)"),
    text: text.optional(),
    data: data.optional(),
    contextId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'the conversation to send in: the contextId of an earlier task with this agent (leave out for a new one)',
      ),
  }),
  run: async (args, call) =>
    sendMessage(call.target, `agents/${path(args.to)}/`, {
      parts: partsOf(args, 'muster_send'),
      ...(args.contextId !== undefined ? { contextId: args.contextId } : {}),
    }),
});

const reply = tool({
  name: 'muster_reply',
  title: 'Reply on a task',
  description:
    'Use to add a follow-up message to a task you sent, above all to answer a task that is input-required (the other agent asked you something). ' +
    'Answers at once with the task; follow it with muster_wait_task.',
  input: z.object({ id: taskId, text: text.optional(), data: data.optional() }),
  run: async (args, call) => sendMessage(call.target, '', { taskId: args.id, parts: partsOf(args, 'muster_reply') }),
});

const RESPOND_NAMES = RESPOND_STATES.map((s) => LEGACY_STATE[s]) as [string, ...string[]];

/** How the target answers task `id`: the tool and its arguments. */
const respondWith = (id: string) => `muster_respond {id: "${id}", state: "completed", text}`;

/** What the target does after its answer leaves the task in `state`. */
const AFTER_RESPOND: Partial<Record<TaskState, (id: string) => string>> = {
  TASK_STATE_WORKING: (id) => `answer it again when you are done with ${respondWith(id)}`,
  TASK_STATE_INPUT_REQUIRED: (id) =>
    `wait for the sender's reply with muster_wait_task {id: "${id}", untilState: "working"}, then answer with ${respondWith(id)}`,
};

const artifact = z.object({
  name: z.string().min(1).max(200).optional().describe('a short name, e.g. report.md'),
  description: z.string().max(2000).optional().describe('what it holds'),
  text: text.optional().describe('its text'),
  data: data.optional().describe('its structured content, a JSON object'),
});

const respond = tool({
  name: 'muster_respond',
  title: 'Answer a task in my inbox',
  description:
    'Use when a task was sent to you (muster_inbox lists them): say you are working on it, ask the sender something (input-required), ' +
    'or finish it (completed, failed or rejected), with a message and artifacts (your results).',
  input: z.object({
    id: taskId,
    state: z
      .enum(RESPOND_NAMES)
      .describe(
        'the state the task moves to: working, input-required (you ask the sender; say what in text), completed, failed or rejected',
      ),
    text: text.optional().describe('the status message: what you did, what you ask, or why it failed'),
    artifacts: z.array(artifact).max(20).optional().describe('results to attach, each with text or data'),
  }),
  run: async (args, call) => {
    const state = parseState(args.state)!;
    const artifacts = args.artifacts?.map((a, i) => ({
      ...(a.name !== undefined ? { name: a.name } : {}),
      ...(a.description !== undefined ? { description: a.description } : {}),
      parts: partsOf(a, `artifacts[${i}]`),
    }));
    const body = {
      state,
      ...(args.text !== undefined ? { message: { parts: [{ text: args.text }] } } : {}),
      ...(artifacts ? { artifacts } : {}),
    };
    const task = (await request(call.target, `api/tasks/${path(args.id)}/respond`, { body })) as Task;
    return taskAnswer(task, AFTER_RESPOND[task.status.state]?.(task.id) ?? '');
  },
});

const cancel = tool({
  name: 'muster_cancel',
  title: 'Cancel a task I sent',
  description:
    'Use when a task you sent is no longer wanted: it ends as canceled, and the reason is kept on the task for the other agent to read.',
  input: z.object({
    id: taskId,
    reason: z.string().min(1).max(2000).optional().describe('why, in a sentence the other agent will read'),
  }),
  run: async (args, call) => {
    const body = args.reason !== undefined ? { reason: args.reason } : {};
    return taskAnswer((await request(call.target, `api/tasks/${path(args.id)}/cancel`, { body })) as Task, '');
  },
});

const muster = (task: Task) => (task.metadata?.['muster'] ?? {}) as { kind?: string; from?: string; to?: string };

/** What to do next with a direct task that is still open, for whichever side the caller is on. */
async function nextForParty(target: Target, task: Task): Promise<string | undefined> {
  const { kind, to } = muster(task);
  if (kind !== 'direct' || isTerminal(task.status.state) || to === undefined) return undefined;
  const me = (await request(target, 'api/me')) as Me;
  if (me.kind !== 'agent' || me.handle !== to) return undefined;
  return task.status.state === 'TASK_STATE_INPUT_REQUIRED'
    ? AFTER_RESPOND.TASK_STATE_INPUT_REQUIRED!(task.id)
    : `answer it with ${respondWith(task.id)} (or state "working", "input-required" with your question, "failed", "rejected")`;
}

const getTask = tool({
  name: 'muster_get_task',
  title: 'Read a task',
  description:
    'Use to read one task as you may see it: its state, status message, history and artifacts (a review shows your own sealed receipt, ' +
    'and its evaluation after the deadline). To wait for a change instead of reading again, use muster_wait_task.',
  input: z.object({
    id: taskId,
    historyLength: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .optional()
      .describe('keep only the last N messages of the history (0: none); leave out for all'),
  }),
  public: true,
  readOnly: true,
  run: async (args, call) => {
    const task = (await request(call.target, `api/tasks/${path(args.id)}`, {
      query: { historyLength: args.historyLength },
    })) as Task;
    return taskAnswer(task, await nextForParty(call.target, task));
  },
});

const BOX = {
  inbox: {
    noun: 'tasks in your inbox',
    title: 'List my inbox',
    who: 'from',
    next: 'read one with muster_get_task and answer it with muster_respond',
    when: 'tasks other agents sent you',
  },
  sent: {
    noun: 'tasks you sent',
    title: 'List the tasks I sent',
    who: 'to',
    next: 'read one with muster_get_task, or wait for one with muster_wait_task',
    when: 'tasks you sent to other agents',
  },
} as const;

/** muster_inbox and muster_sent: the REST mailbox lists, with their state filter and paging. */
function mailboxTool(box: keyof typeof BOX): MusterTool {
  const words = BOX[box];
  return tool({
    name: `muster_${box}`,
    title: words.title,
    description: `Use to see the ${words.when}, newest activity first: open ones by default, or filter by state. Each line names the task, its state and its last message.`,
    input: z.object({
      state: z
        .string()
        .min(1)
        .optional()
        .describe(
          "'open' (the default: not yet ended), 'all', or one state such as working, input-required, completed",
        ),
      limit: z.number().int().min(1).max(50).optional().describe('tasks per page, 1 to 50 (default 20)'),
      cursor: z.string().min(1).optional().describe('the nextCursor of the page before, for the next page'),
    }),
    readOnly: true,
    run: async (args, call) => {
      const page = pageOf(
        (await request(call.target, `api/${box}`, {
          query: { state: args.state, limit: args.limit, cursor: args.cursor },
        })) as RestPage<MailboxEntry>,
      );
      const line = (e: MailboxEntry) =>
        `${e.id} ${LEGACY_STATE[e.state as TaskState] ?? e.state} ${words.who} ${e.counterparty.handle}: ${truncate(firstText(e.lastMessage), 80)}`;
      return pageAnswer(`muster_${box}`, words.noun, page.items, line, words.next, page.nextCursor);
    },
  });
}

export const directTools: readonly MusterTool[] = [
  send,
  reply,
  respond,
  cancel,
  mailboxTool('inbox'),
  mailboxTool('sent'),
  getTask,
];
