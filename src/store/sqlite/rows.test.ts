import { describe, expect, it } from 'vitest';
import type { TaskRecord } from '../store.js';
import { recordFromRow, type TaskRow } from '../rows.js';
import { TASK_COLUMNS } from '../rows.js';
import { rowValues } from './rows.js';

describe('task rows', () => {
  it('rowValues gives every column its own value, in TASK_COLUMNS order', () => {
    // Every field distinct, so two values swapped between columns cannot read back equal.
    const record: TaskRecord = {
      id: 'task',
      kind: 'direct',
      contextId: 'context',
      sender: 'ann',
      target: 'bob',
      visibility: 'participants',
      state: 'TASK_STATE_WORKING',
      statusMessage: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'on it' }] },
      statusAt: 1,
      createdAt: 2,
      updatedAt: 3,
      metadata: { note: 'x' },
      messageCount: 4,
      artifactCount: 5,
      version: 6,
      lastSeq: 7,
      rank: 8,
      holder: 'carl',
      heldUntil: 9,
      openKey: 'key',
      acceptedOutputModes: ['text/plain'],
    };
    const values = rowValues(record);
    expect(values).toHaveLength(TASK_COLUMNS.length);
    const row = Object.fromEntries(TASK_COLUMNS.map((column, i) => [column, values[i]])) as unknown as TaskRow;
    expect(recordFromRow(row)).toEqual(record);
  });
});
