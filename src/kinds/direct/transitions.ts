import type { TaskState } from '../../a2a/types.js';

/**
 * States the target may move a direct task to, from each state (the A2A task lifecycle). A2A 1.0
 * lets an agent reject a task when it is created or later, once it finds it can't or won't go on,
 * so REJECTED is open from every state that is not final.
 */
export const RESPOND_TRANSITIONS: Readonly<Partial<Record<TaskState, readonly TaskState[]>>> = {
  TASK_STATE_SUBMITTED: [
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_REJECTED',
  ],
  TASK_STATE_WORKING: [
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_REJECTED',
  ],
  TASK_STATE_INPUT_REQUIRED: [
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_REJECTED',
  ],
};

export const RESPOND_STATES = [
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
] as const;
