/** Task writes and delivery drafts as the store suites write them: a fresh task, its next version, a delivery. */
import type { Message } from '../a2a/types.js';
import type { DeliveryDraft, TaskRecord, TaskWrite } from './store.js';

export const message = (id: string, text = id): Message => ({ messageId: id, role: 'ROLE_USER', parts: [{ text }] });

let seq = 0;
export function newTask(over: Partial<TaskRecord> = {}): TaskWrite {
  const now = 1_700_000_000_000 + seq++;
  const record: TaskRecord = {
    id: `task-${seq}-${Math.random().toString(36).slice(2)}`,
    kind: 'direct',
    contextId: 'ctx',
    sender: 'a',
    target: 'b',
    visibility: 'participants',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: now,
    createdAt: now,
    updatedAt: now,
    messageCount: 1,
    artifactCount: 0,
    version: 1,
    lastSeq: 1,
    ...over,
  };
  return {
    record,
    newMessages: [message(`m-${record.id}`)],
    newArtifacts: [],
    events: [{ task: { id: record.id, contextId: 'ctx', status: { state: record.state, timestamp: '' } } }],
  };
}

export function bump(w: TaskWrite, over: Partial<TaskRecord> = {}, extra: Partial<TaskWrite> = {}): TaskWrite {
  const r = w.record;
  return {
    record: {
      ...r,
      version: r.version + 1,
      lastSeq: r.lastSeq + 1,
      updatedAt: r.updatedAt + 1,
      messageCount: r.messageCount + 1,
      ...over,
    },
    expectedVersion: r.version,
    newMessages: [message(`follow-${r.version}`)],
    newArtifacts: [],
    events: [{ message: message(`follow-${r.version}`) }],
    ...extra,
  };
}

export const draft = (taskId: string, channel: string, seq: number): DeliveryDraft => ({
  id: `${taskId}-${channel}-${seq}`,
  taskId,
  channel,
  seq,
  url: 'https://x.example/hook',
  headers: { 'content-type': 'application/json' },
  body: '{}',
});
