/**
 * How tools say what happened: one line for the model to read, the same as data. Every tool that
 * answers a task answers it through `taskAnswer`, so a task reads the same whichever tool showed it.
 */
import { stateLabel } from '../a2a/states.js';
import type { Task, TaskState } from '../a2a/types.js';
import type { ToolAnswer } from './tool.js';

/** What an agent holding the task usually does next, by state; a tool may say something more precise. */
const NEXT_BY_STATE: Partial<Record<TaskState, string>> = {
  TASK_STATE_SUBMITTED: 'wait for the other side with muster_wait_task',
  TASK_STATE_WORKING: 'wait for it to change with muster_wait_task',
  TASK_STATE_AUTH_REQUIRED: 'the other side needs authorization before it goes on',
};

/** What the one asked does next: the tool and its arguments, with this task's id in them. */
export const answerWithReply = (id: string): string =>
  `answer the question with muster_reply {id: "${id}", text: "<your answer>"} (or data: {…})`;

const defaultNext = (task: Task): string | undefined =>
  task.status.state === 'TASK_STATE_INPUT_REQUIRED' ? answerWithReply(task.id) : NEXT_BY_STATE[task.status.state];

/** The text of a message or status: its text parts joined. */
export function textOf(message: { parts?: readonly { text?: string }[] } | undefined): string {
  return (message?.parts ?? [])
    .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
    .join(' ')
    .trim();
}

/** A task as a tool answers it: id, state in words, its status text, and what to do next. */
export function taskAnswer(task: Task, next?: string, extra: Record<string, unknown> = {}): ToolAnswer {
  const state = task.status.state;
  const status = textOf(task.status.message);
  const then = next ?? defaultNext(task);
  const text = [`Task ${task.id} is ${stateLabel(state)}.`, status, then ? `Next: ${then}.` : '']
    .filter((s) => s !== '')
    .join(' ');
  return { text, structured: { ...extra, task, state, ...(then ? { next: then } : {}) } };
}

/** A list as a tool answers it: how many, one line each, what to do next (`extra.next`, if any), and the items as data. */
export function listAnswer<T>(
  noun: string,
  items: readonly T[],
  line: (item: T) => string,
  extra: Record<string, unknown> = {},
): ToolAnswer {
  const head = items.length === 0 ? `No ${noun}.` : `${items.length} ${noun}:`;
  const then = typeof extra['next'] === 'string' ? [`Next: ${extra['next']}.`] : [];
  return {
    text: [head, ...items.map((item) => `- ${line(item)}`), ...then].join('\n'),
    structured: { ...extra, items },
  };
}

/** One page of a longer list: listAnswer, with `nextCursor` and, after `next`, how to read on (call `tool` again with it). */
export function pageAnswer<T>(
  tool: string,
  noun: string,
  items: readonly T[],
  line: (item: T) => string,
  next: string,
  nextCursor: string | undefined,
): ToolAnswer {
  const more = nextCursor ? `; for more, call ${tool} again with cursor ${nextCursor}` : '';
  return listAnswer(noun, items, line, { ...(nextCursor ? { nextCursor } : {}), next: `${next}${more}` });
}
