/** A direct task's first write, as the PostgreSQL store tests make them (two-handles, group-commit). */
import { randomUUID } from 'node:crypto';
import type { TaskRecord, TaskWrite } from '../store.js';

export const T0 = 1_800_000_000_000;

export function newTask(over: Partial<TaskRecord> = {}, extra: Partial<TaskWrite> = {}): TaskWrite {
  const id = `t-${randomUUID()}`;
  const record: TaskRecord = {
    id,
    kind: 'direct',
    contextId: 'ctx',
    sender: 'a',
    target: 'b',
    visibility: 'participants',
    state: 'TASK_STATE_WORKING',
    statusAt: T0,
    createdAt: T0,
    updatedAt: T0,
    messageCount: 1,
    artifactCount: 0,
    version: 1,
    lastSeq: 1,
    ...over,
  };
  return {
    record,
    newMessages: [{ messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
    newArtifacts: [],
    events: [{ task: { id, contextId: 'ctx', status: { state: record.state, timestamp: '' } } }],
    ...extra,
  };
}
