/**
 * The words people read for a task's state: each kind's feed part declares its own (a call is open
 * or closed, an intent landed or withdrawn); a state a kind leaves out reads as one of these plain
 * words. The feed never shows a raw A2A state (`working`, `TASK_STATE_CANCELED`).
 */
import { stateLabel } from '../../a2a/states.js';
import type { TaskState } from '../../a2a/types.js';
import { html, type Html } from './html.js';

/** A state's word; on a task between two agents it may read differently to its sender and its receiver. */
export type StateWord = string | { anyone: string; sender: string; receiver: string };

/** A kind's words for its states. */
export type StateWords = Partial<Record<TaskState, StateWord>>;

/** Who reads the word: the task's sender, its receiver, or anyone (a public page). */
export type Reader = 'anyone' | 'sender' | 'receiver';

export const PLAIN_STATES: Readonly<Record<TaskState, string>> = {
  TASK_STATE_SUBMITTED: 'new',
  TASK_STATE_WORKING: 'in progress',
  TASK_STATE_INPUT_REQUIRED: 'needs input',
  TASK_STATE_AUTH_REQUIRED: 'needs sign-in',
  TASK_STATE_COMPLETED: 'done',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_REJECTED: 'rejected',
};

export const wordOf = (words: StateWords | undefined, state: TaskState, reader: Reader = 'anyone'): string => {
  const word = words?.[state] ?? PLAIN_STATES[state] ?? 'unknown';
  return typeof word === 'string' ? word : word[reader];
};

/** A state as a badge: the state names its style (`state-input-required`), the word is its text. */
export const badge = (state: TaskState, word: string): Html =>
  html`<span class="state state-${stateLabel(state) ?? 'unknown'}">${word}</span>`;
