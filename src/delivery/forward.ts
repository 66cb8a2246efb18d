import { v7 as uuidv7 } from 'uuid';
import type { Message } from '../a2a/types.js';
import type { Delivery, ForwardDraft, LazyForward, StoredTask } from '../store/store.js';

export const FORWARD_CHANNEL = 'forward';

/**
 * A new direct task as an A2A SendMessage to the target's own endpoint. The delivery id is the
 * JSON-RPC id, the messageId and the Idempotency-Key of every attempt, so the endpoint can drop
 * repeats; the task's Muster ids travel in the message metadata, and the media types the sender
 * accepts in the answer (TaskRecord.acceptedOutputModes) in the configuration. It never blocks: the
 * endpoint answers the hub's copy, and the sender reads the answer from the hub.
 */
export function forwardOf(task: StoredTask, to: string): LazyForward | undefined {
  const first = task.history[0];
  return first && { to, draft: () => forwardDraft(task, first, to) };
}

function forwardDraft(task: StoredTask, first: Message, to: string): ForwardDraft {
  const id = uuidv7();
  const { record } = task;
  const message = {
    messageId: id,
    role: 'ROLE_USER',
    parts: first.parts,
    metadata: Object.assign({}, first.metadata, { muster: { taskId: record.id, contextId: record.contextId, from: record.sender, to: record.target } }),
  };
  return {
    id,
    taskId: record.id,
    channel: FORWARD_CHANNEL,
    seq: 1,
    to,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message, configuration: configurationOf(record.acceptedOutputModes) } }),
  };
}

const configurationOf = (acceptedOutputModes: readonly string[] | undefined) =>
  acceptedOutputModes ? { acceptedOutputModes, returnImmediately: true } : { returnImmediately: true };

/** What the endpoint answered, as recorded on the task in metadata.muster.forwarding. */
export interface ForwardingRecord {
  state: Delivery['state'];
  attempts: number;
  lastAttemptAt: string;
  httpStatus?: number;
  remoteTaskId?: string;
  /** The endpoint answered the SendMessage with a JSON-RPC error. */
  remoteError?: { code: number; message: string };
}

export function forwardingRecord(delivery: Delivery, responseBody: Buffer | undefined): ForwardingRecord {
  let remoteTaskId: string | undefined;
  let remoteError: ForwardingRecord['remoteError'];
  try {
    const answer = responseBody && JSON.parse(responseBody.toString('utf8'));
    const id = answer?.result?.task?.id ?? answer?.result?.id;
    if (typeof id === 'string') remoteTaskId = id;
    if (typeof answer?.error?.code === 'number') remoteError = { code: answer.error.code, message: String(answer.error.message ?? '') };
  } catch {
    /* an answer that is not JSON is recorded by its status alone */
  }
  return {
    state: delivery.state,
    attempts: delivery.attempts,
    lastAttemptAt: new Date(delivery.lastAttemptAt ?? Date.now()).toISOString(),
    ...(delivery.lastStatus !== undefined ? { httpStatus: delivery.lastStatus } : {}),
    ...(remoteTaskId ? { remoteTaskId } : {}),
    ...(remoteError ? { remoteError } : {}),
  };
}
