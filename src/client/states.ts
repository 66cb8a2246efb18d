/** The task states the CLI checks before sending, so a typo is refused locally (exit 2) and not by the hub. */
import { InvalidArgumentError } from 'commander';
import { isTerminal, LEGACY_STATE, parseState } from '../a2a/states.js';
import type { TaskState } from '../a2a/types.js';
import { RESPOND_STATES } from '../wire/respond-states.js';
import { UsageError } from './errors.js';

const spelled = (states: readonly TaskState[]): string =>
  `${states.map((s) => LEGACY_STATE[s]).join(', ')} (or a TASK_STATE_* name)`;

/** `respond <state>`: one of the states a response may set; refused naming the argument. */
export function respondState(value: string): string {
  const state = parseState(value);
  if (state === undefined || !(RESPOND_STATES as readonly TaskState[]).includes(state)) {
    throw new UsageError(
      `<state> '${value}' is not a state a response sets: use one of ${spelled(RESPOND_STATES)}`,
      'See muster respond --help',
    );
  }
  return value;
}

/** A commander parser for an option naming any task state (--expected-state: a task may still be submitted). */
export function anyState(value: string): string {
  if (parseState(value) === undefined)
    throw new InvalidArgumentError(`must be one of ${spelled(Object.keys(LEGACY_STATE) as TaskState[])}`);
  return value;
}

/** A commander parser for --state: one of `words` (open, all, …) or any task state, so a typo is refused locally (exit 2). */
export const wordOrState =
  (words: readonly string[]) =>
  (value: string): string => {
    if (words.includes(value) || parseState(value) !== undefined) return value;
    throw new InvalidArgumentError(
      `must be ${words.join(', ')}, or one of ${spelled(Object.keys(LEGACY_STATE) as TaskState[])}`,
    );
  };

/** Whether a task in `state` is settled for its sender (ended, or needs it: input-required, auth-required): where a blocking send's wait ends. */
export const settles = (state: TaskState): boolean =>
  isTerminal(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';
