/**
 * What a FireTrident client reads of an intent, in its words: the intent's own status word, the
 * REST URLs of an intent and of a path's why, and the sentence a task's status says (what
 * happened, what to do next). The facts all come from the task as the hub shows it.
 */
import type { Task, TaskState } from '../../a2a/types.js';

/** The intent's own status word for each task state (metadata.firetrident.status, the REST `status`). */
export const STATUS_WORD: Partial<Record<TaskState, string>> = {
  TASK_STATE_SUBMITTED: 'open',
  TASK_STATE_WORKING: 'in_progress',
  TASK_STATE_INPUT_REQUIRED: 'input_required',
  TASK_STATE_COMPLETED: 'landed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'withdrawn',
};

export const statusWord = (state: TaskState): string => STATUS_WORD[state] ?? 'unknown';

/** Where a colony's REST routes hang, under the hub's base URL. */
export const colonyUrl = (base: string, colony: string) => `${base}api/colonies/${encodeURIComponent(colony)}/`;
export const intentUrl = (base: string, colony: string, id: string) =>
  `${colonyUrl(base, colony)}intents/${encodeURIComponent(id)}`;
export const whyUrl = (base: string, colony: string, path: string) =>
  `${colonyUrl(base, colony)}why?path=${encodeURIComponent(path)}`;

/** The intent's fields as the hub keeps them (metadata.muster), with the hold the view adds. */
export interface MusterFacts {
  title?: string;
  why?: string;
  footprint?: string[];
  acceptance?: string[];
  priority?: number;
  from?: string;
  worker?: string;
  duplicateOf?: string;
  cancelReason?: string;
  wait?: { ranOut?: boolean; seconds?: number };
}

export const factsOf = (task: Task): MusterFacts => (task.metadata?.['muster'] ?? {}) as MusterFacts;

/** The Landing's data part as the intent kind writes it. */
export interface LandingFacts {
  commit?: string;
  files?: { path: string; why?: string }[];
  landedAt?: string;
  worker?: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const FOLLOW = 'Poll GetTask to follow it; CancelTask withdraws it.';

/** The native sentence a status carries now (a worker's question, a failure's reason, a withdrawal's). */
const nativeSentence = (task: Task): string => task.status.message?.parts.find((p) => p.text !== undefined)?.text ?? '';

/** The sentence the task's status says at the colony: what happened, and what to do next. */
export function statusSentence(task: Task, colony: string, landing: LandingFacts | undefined): string {
  const facts = factsOf(task);
  const worker = facts.worker ?? 'An agent';
  const twin = facts.duplicateOf
    ? `Nothing new was declared: this message repeats intent ${facts.duplicateOf} (the same title words, an overlapping footprint), which is answered here; add "force": true to the data part to declare it anyway. `
    : '';
  const waited =
    facts.wait?.ranOut && facts.wait.seconds !== undefined
      ? ` The answer waited ${facts.wait.seconds} s and the intent has not ended yet.`
      : '';
  return `${twin}${stateSentence(task, colony, worker, landing, facts.priority)}${waited}`;
}

function stateSentence(
  task: Task,
  colony: string,
  worker: string,
  landing: LandingFacts | undefined,
  priority: number | undefined,
): string {
  const id = task.id;
  switch (task.status.state) {
    case 'TASK_STATE_SUBMITTED':
      return `Intent ${id} is declared in colony ${colony}${priority === undefined ? '' : ` at priority ${priority}`} and waits for an agent to claim it. ${FOLLOW}`;
    case 'TASK_STATE_WORKING':
      return `${worker} is working on intent ${id} in colony ${colony}. ${FOLLOW}`;
    case 'TASK_STATE_INPUT_REQUIRED':
      return `${worker} asks about intent ${id}: "${nativeSentence(task)}". Answer it with a message carrying this taskId at the colony's native base (/spaces/${colony}/), or withdraw it with CancelTask.`;
    case 'TASK_STATE_COMPLETED': {
      const files = landing?.files?.length ?? 0;
      const commit = landing?.commit ? ` in commit ${landing.commit}` : '';
      return `${landing?.worker ?? worker} landed intent ${id}${commit}, writing ${plural(files, 'file')}; the Landing artifact names each file with the link that says why it changed.`;
    }
    case 'TASK_STATE_FAILED':
      return `${nativeSentence(task)} Send a new message to declare the work again.`;
    default:
      return nativeSentence(task);
  }
}
