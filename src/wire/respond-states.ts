/**
 * The states a response may set (`POST /api/tasks/{id}/respond`, `muster respond`, the MCP respond
 * tool): the direct kind moves a task to one of them, and the clients refuse any other before
 * they send.
 */
export const RESPOND_STATES = [
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
] as const;
