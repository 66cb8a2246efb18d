/**
 * Intents as a database held them before tasks had a rank and a holder (SQLite migration 11,
 * PostgreSQL 3): the priority, the worker and its lease's end in `metadata.muster`. Each
 * dialect's test writes these rows under its old schema, opens the store (which migrates) and
 * checks what it reads with `expectUpgraded`.
 */
import { expect } from 'vitest';
import type { Store } from './store.js';
import { taskScopes } from '../hub/view.js';

const muster = (priority: number, held: object = {}) =>
  JSON.stringify({ muster: { space: 'upgraded', title: `at ${priority}`, footprint: ['src/**'], priority, ...held } });

const row = (id: string, state: string, statusAt: number, metadata: string, kind = 'intent') => ({
  id,
  kind,
  context_id: 'upgraded',
  sender: 'ann',
  target: null,
  visibility: 'public',
  state,
  status_message: null,
  status_at: statusAt,
  created_at: statusAt,
  updated_at: statusAt,
  metadata,
  message_count: 0,
  artifact_count: 0,
  version: 1,
  last_seq: 1,
});

/** The `tasks` rows, by the columns of the old schema. */
export const ROWS_BEFORE = [
  row('worked', 'TASK_STATE_WORKING', 100, muster(3, { worker: 'wes', leaseUntil: '2026-12-01T15:10:30.082Z' })),
  row('landed', 'TASK_STATE_COMPLETED', 200, muster(5, { worker: 'wyn' })), // its landing dropped leaseUntil
  row('open', 'TASK_STATE_SUBMITTED', 300, muster(1)),
  row(
    'direct',
    'TASK_STATE_SUBMITTED',
    400,
    JSON.stringify({ muster: { priority: 9, worker: 'not an intent' } }),
    'direct',
  ),
];

export async function expectUpgraded(store: Store): Promise<void> {
  const record = async (id: string) => (await store.getTask(id, { includeArtifacts: false }))!.record;
  expect(await record('worked')).toMatchObject({
    rank: 3,
    holder: 'wes',
    heldUntil: Date.parse('2026-12-01T15:10:30.082Z'),
    metadata: { muster: { priority: 3 } },
  });
  expect(await record('landed')).toMatchObject({ rank: 5, holder: 'wyn', heldUntil: 200 }); // the hold ended with the work
  expect(await record('open')).toMatchObject({ rank: 1, metadata: JSON.parse(muster(1)) });
  // The hold is all there is of the worker: the metadata keeps neither it nor its lease.
  for (const id of ['worked', 'landed'])
    expect((await record(id)).metadata!['muster'] as object).not.toHaveProperty('worker');
  expect((await record('worked')).metadata!['muster']).not.toHaveProperty('leaseUntil');
  const direct = await record('direct');
  expect([direct.rank, direct.holder, direct.metadata]).toEqual([
    undefined,
    undefined,
    JSON.parse(ROWS_BEFORE[3]!.metadata),
  ]);
  const page = await store.listTasks({
    scope: taskScopes.space('upgraded', ['intent']),
    order: 'rank',
    limit: 5,
    includeArtifacts: false,
    states: ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
  });
  expect(page.tasks.map((t) => t.record.id)).toEqual(['landed', 'worked', 'open']);
}
