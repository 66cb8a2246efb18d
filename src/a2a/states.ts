import type { TaskState } from './types.js';

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

export const isTerminal = (state: TaskState): boolean => TERMINAL_STATES.has(state);

/** The 0.3 spelling of each state ("input-required"), used by 0.3 doors and friendly filters. */
export const LEGACY_STATE: Readonly<Record<TaskState, string>> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};

const BY_NAME = new Map<string, TaskState>();
for (const [state, legacy] of Object.entries(LEGACY_STATE) as [TaskState, string][]) {
  BY_NAME.set(state, state);
  BY_NAME.set(legacy, state);
}
BY_NAME.set('TASK_STATE_CANCELLED', 'TASK_STATE_CANCELED');
BY_NAME.set('cancelled', 'TASK_STATE_CANCELED');

/** Reads a state written either way (`TASK_STATE_INPUT_REQUIRED` or `input-required`); undefined if neither. */
export const parseState = (name: string): TaskState | undefined => BY_NAME.get(name);

/** Short lower-case name for people: `input-required`. */
export const stateLabel = (state: TaskState): string => LEGACY_STATE[state];
