/**
 * Tasks as a database held them before tasks had open keys (SQLite migration 13, PostgreSQL 5):
 * two open twins of one work (raced, or forced), a landed one, another open intent and a direct
 * task. Each dialect's test writes these rows under its old schema, opens the store (which
 * migrates) and checks what it reads with `expectKeyed`.
 */
import { expect } from 'vitest';
import { intentOpenKey } from '../kinds/intent/twins.js';
import type { Store, TaskWrite } from './store.js';

const intent = (title: string, footprint: string[]) =>
  JSON.stringify({ muster: { space: 'keyed', title, footprint, priority: 1 } });

const row = (id: string, state: string, createdAt: number, metadata: string, kind = 'intent') => ({
  id,
  kind,
  context_id: 'keyed',
  sender: 'ann',
  target: null,
  visibility: 'public',
  state,
  status_message: null,
  status_at: createdAt,
  created_at: createdAt,
  updated_at: createdAt,
  metadata,
  message_count: 0,
  artifact_count: 0,
  version: 1,
  last_seq: 1,
  rank: 1,
  holder: null,
  held_until: null,
});

/** The `tasks` rows, by the columns of the old schema. */
export const ROWS_UNKEYED = [
  row('landed', 'TASK_STATE_COMPLETED', 50, intent('Add caching', ['src/cache/**'])),
  row('older', 'TASK_STATE_SUBMITTED', 100, intent('Add caching', ['src/cache/**'])),
  row('newer', 'TASK_STATE_WORKING', 200, intent('caching: add', ['./src/cache/**/'])), // the same work, in other words
  row('other', 'TASK_STATE_INPUT_REQUIRED', 300, intent('Add caching', ['src/links/**'])),
  row(
    'direct',
    'TASK_STATE_SUBMITTED',
    400,
    JSON.stringify({ muster: { space: 'keyed', title: 'Add caching', footprint: ['src/cache/**'] } }),
    'direct',
  ),
];

export async function expectKeyed(store: Store): Promise<void> {
  const keyOf = async (id: string) => (await store.getTask(id, { includeArtifacts: false }))!.record.openKey;
  const cache = intentOpenKey('keyed', 'Add caching', ['src/cache/**']);
  // Of the open twins the oldest holds the key; the landed one and the direct task hold none.
  expect(await keyOf('older')).toBe(cache);
  expect(await Promise.all(['landed', 'newer', 'direct'].map(keyOf))).toEqual([undefined, undefined, undefined]);
  expect(await keyOf('other')).toBe(intentOpenKey('keyed', 'Add caching', ['src/links/**']));
  expect(await store.openKeyHolder(cache)).toBe('older');
  // A declaration of that work now meets the key as one made after the upgrade would.
  const record = {
    id: 'declared',
    kind: 'intent',
    contextId: 'keyed',
    visibility: 'public' as const,
    state: 'TASK_STATE_SUBMITTED' as const,
    statusAt: 500,
    createdAt: 500,
    updatedAt: 500,
    messageCount: 0,
    artifactCount: 0,
    version: 1,
    lastSeq: 0,
    openKey: cache,
  };
  const declared: TaskWrite = { record, newMessages: [], newArtifacts: [], events: [] };
  await expect(store.createTask(declared)).rejects.toMatchObject({ name: 'StoreConflict', what: 'open-key' });
}
