import type { TaskState } from '../../a2a/types.js';
import { RESPOND_STATES } from '../../wire/respond-states.js';

/**
 * States the target may move a direct task to, from each state (the A2A task lifecycle): any state
 * a response sets, from every state that is not final. A2A 1.0 lets an agent reject a task when it
 * is created or later, once it finds it can't or won't go on, so REJECTED is among them.
 */
export const RESPOND_TRANSITIONS: Readonly<Partial<Record<TaskState, readonly TaskState[]>>> = {
  TASK_STATE_SUBMITTED: RESPOND_STATES,
  TASK_STATE_WORKING: RESPOND_STATES,
  TASK_STATE_INPUT_REQUIRED: RESPOND_STATES,
};
