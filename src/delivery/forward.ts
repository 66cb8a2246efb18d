import { v7 as uuidv7 } from 'uuid';
import type { Message } from '../a2a/types.js';
import type {
  Delivery,
  DeliveryDraft,
  FollowMeans,
  ForwardDraft,
  LazyForward,
  StoredTask,
  TaskRecord,
} from '../store/store.js';
import { storedCall, type RemoteCall } from './remote/requests.js';
import { isoTime } from '../wire/iso-time.js';

/** The calls that carry the sender's side to the endpoint, in order: the forward, follow-ups, a cancel. */
export const FORWARD_CHANNEL = 'forward';
/** The reads of the endpoint's task, one delivery made again until the task ends. */
export const FOLLOW_CHANNEL = 'follow';

/**
 * A new direct task as an A2A SendMessage to the target's own endpoint. The delivery id is the
 * JSON-RPC id, the messageId and the Idempotency-Key of every attempt, so the endpoint can drop
 * repeats; the task's Muster ids travel in the message metadata, and the media types the sender
 * accepts in the answer (TaskRecord.acceptedOutputModes) in the configuration. It never blocks:
 * the hub follows the endpoint's task and brings its answer back (hub/forwards.ts).
 */
export function forwardOf(task: StoredTask, to: string): LazyForward | undefined {
  const first = task.history[0];
  return first && { to, draft: () => forwardDraft(task.record, first, to) };
}

function forwardDraft(record: TaskRecord, first: Message, to: string): ForwardDraft {
  const id = uuidv7();
  const message = remoteMessage(record, first, id);
  const call: RemoteCall = {
    id,
    method: 'SendMessage',
    params: { message, configuration: configurationOf(record.acceptedOutputModes) },
  };
  return { id, taskId: record.id, channel: FORWARD_CHANNEL, seq: 1, to, headers: {}, body: storedCall(call) };
}

/** The sender's message as the endpoint gets it: the hub's ids beside the sender's own metadata. */
function remoteMessage(record: TaskRecord, message: Message, id: string): Record<string, unknown> {
  return {
    messageId: id,
    role: 'ROLE_USER',
    parts: message.parts,
    metadata: Object.assign({}, message.metadata, {
      muster: { taskId: record.id, contextId: record.contextId, from: record.sender, to: record.target },
    }),
  };
}

const configurationOf = (acceptedOutputModes: readonly string[] | undefined) =>
  acceptedOutputModes ? { acceptedOutputModes, returnImmediately: true } : { returnImmediately: true };

/** Where the endpoint's task is, once its answer to the forward named it. */
export interface RemoteTaskRef {
  remoteTaskId: string;
  remoteContextId?: string;
}

const draft = (record: TaskRecord, channel: string, seq: number, url: string, call: RemoteCall): DeliveryDraft => ({
  id: call.id,
  taskId: record.id,
  channel,
  seq,
  url,
  headers: {},
  body: storedCall(call),
});

/** The sender's follow-up (an answer to INPUT_REQUIRED) for the endpoint's task. `seq`: the task's event that carried it. */
export function followUpDraft(
  record: TaskRecord,
  message: Message,
  remote: RemoteTaskRef,
  url: string,
  seq: number,
): DeliveryDraft {
  const id = uuidv7();
  const sent = Object.assign(
    remoteMessage(record, message, id),
    { taskId: remote.remoteTaskId },
    remote.remoteContextId ? { contextId: remote.remoteContextId } : {},
  );
  return draft(record, FORWARD_CHANNEL, seq, url, {
    id,
    method: 'SendMessage',
    params: { message: sent, configuration: configurationOf(record.acceptedOutputModes) },
  });
}

/** The sender's cancel, for the endpoint's task. */
export const cancelDraft = (record: TaskRecord, remote: RemoteTaskRef, url: string, seq: number): DeliveryDraft =>
  draft(record, FORWARD_CHANNEL, seq, url, { id: uuidv7(), method: 'CancelTask', params: { id: remote.remoteTaskId } });

/** The read of the endpoint's task that follows it until it ends. */
export const followDraft = (record: TaskRecord, remote: RemoteTaskRef, url: string): DeliveryDraft =>
  draft(record, FOLLOW_CHANNEL, 1, url, { id: uuidv7(), method: 'GetTask', params: { id: remote.remoteTaskId } });

/** What the hub knows of the forward, as recorded on the task in metadata.muster.forwarding. */
export interface ForwardingRecord extends Partial<RemoteTaskRef> {
  state: Delivery['state'];
  attempts: number;
  lastAttemptAt: string;
  httpStatus?: number;
  /** How the hub follows the endpoint's task until it ends (SpokenInterface.follow; 'polling' after a stream was refused). */
  following?: FollowMeans;
  /** The endpoint refused a call for good (a JSON-RPC error, a 4xx), or stopped answering. */
  remoteError?: { code: number; message: string };
}

/** The record after an attempt: what the attempt says, over what was known before. */
export function forwardingRecord(
  before: Partial<ForwardingRecord> | undefined,
  delivery: Delivery,
  learned: Partial<ForwardingRecord>,
): ForwardingRecord {
  const { remoteError: _old, httpStatus: _status, ...kept } = before ?? {};
  return Object.assign(kept, {
    state: delivery.state,
    attempts: delivery.attempts,
    lastAttemptAt: isoTime(delivery.lastAttemptAt ?? Date.now()),
    ...(delivery.lastStatus !== undefined ? { httpStatus: delivery.lastStatus } : {}),
    ...learned,
  });
}
