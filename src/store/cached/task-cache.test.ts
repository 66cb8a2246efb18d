import { describe, expect, it } from 'vitest';
import type { Message } from '../../a2a/types.js';
import type { TaskRecord, TaskWrite } from '../store.js';
import { TaskCache } from './task-cache.js';

const message = (n: number): Message =>
  ({ messageId: `m${n}`, role: 'ROLE_USER', parts: [{ text: String(n) }] }) as Message;

function write(id: string, version: number, messages: number[] = [], expectedVersion?: number): TaskWrite {
  const record = {
    id,
    version,
    kind: 'direct',
    contextId: id,
    visibility: 'participants',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: 0,
    createdAt: 0,
    updatedAt: 0,
    messageCount: 0,
    artifactCount: 0,
    lastSeq: 0,
  } as TaskRecord;
  return { record, expectedVersion, newMessages: messages.map(message), newArtifacts: [], events: [] };
}

const all = { includeArtifacts: true };

describe('TaskCache', () => {
  it('lets the least recently used task go first, a read counting as use', () => {
    const cache = new TaskCache(2);
    cache.committed('create', write('a', 1));
    cache.committed('create', write('b', 1));
    expect(cache.get('a', all)).toBeDefined(); // a is now the most recently used
    cache.committed('create', write('c', 1));
    expect(cache.get('b', all)).toBeUndefined();
    expect(cache.get('a', all)?.record.id).toBe('a');
    expect(cache.get('c', all)?.record.id).toBe('c');
  });

  it('follows updates made on the version it holds and drops a task it is out of step with', () => {
    const cache = new TaskCache();
    cache.committed('create', write('t', 1, [1]));
    cache.committed('update', write('t', 2, [2], 1));
    expect(cache.get('t', all)?.history.map((m) => m.messageId)).toEqual(['m1', 'm2']);
    expect(cache.get('t', { ...all, historyLength: 1 })?.history.map((m) => m.messageId)).toEqual(['m2']);
    cache.committed('update', write('t', 4, [4], 3));
    expect(cache.get('t', all)).toBeUndefined();
  });
});
