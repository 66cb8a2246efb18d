/**
 * What an agent's inbox stream carries (GET /api/agents/{handle}/inbox/stream): the hub logs
 * these events and `muster attach` reads them, so both take the shape from here.
 */
import type { Message, Task } from '../a2a/types.js';

export type InboxEvent =
  | { kind: 'task'; task: Task; acceptedOutputModes?: readonly string[] }
  | { kind: 'message'; taskId: string; message: Message; acceptedOutputModes?: readonly string[] }
  | { kind: 'cancel'; taskId: string; reason?: string };

/** The task an inbox event is about. */
export const inboxTaskId = (event: InboxEvent): string => (event.kind === 'task' ? event.task.id : event.taskId);
