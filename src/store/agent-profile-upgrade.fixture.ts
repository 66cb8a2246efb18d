/**
 * Agents as a database held them before profiles (SQLite migration 14, PostgreSQL 7): each
 * dialect's test writes these rows under its old schema, opens the store (which migrates) and
 * checks with `expectSearchable` that the directory finds them as it finds agents registered after.
 */
import { expect } from 'vitest';
import type { Store } from './store.js';

/** The `agents` rows, by the columns of the old schema. */
export const AGENTS_BEFORE_PROFILES = [
  { handle: 'old-renee', name: 'Renée Écrit', description: 'Writes French copy', endpoint: null, created_at: 10 },
  { handle: 'old-quiet', name: null, description: null, endpoint: null, created_at: 20 },
];

export async function expectSearchable(store: Store): Promise<void> {
  const found = async (q: string) => (await store.searchAgents({ q, limit: 10 })).agents.map((a) => a.handle);
  // Lower-cased as TypeScript does it (Unicode), whatever the dialect's lower() knows.
  expect(await found('renée écrit')).toEqual(['old-renee']);
  expect(await found('french')).toEqual(['old-renee']);
  // Both by their handles (in the order each database's index ranks them), indexed by the migration that made the index.
  expect((await found('old-')).sort()).toEqual(['old-quiet', 'old-renee']);
  // Agents registered before agent ids were given theirs by the migration that added them.
  expect(await store.getAgent('old-quiet')).toEqual({
    handle: 'old-quiet',
    id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    createdAt: 20,
  });
  // A profile set after the upgrade is searched by its skills and tags.
  await store.updateProfile('old-quiet', {
    skills: [{ id: 'hush', name: 'Keep quiet', description: 'Says nothing' }],
    tags: ['silence'],
  });
  expect((await store.searchAgents({ skill: 'hush', tag: 'silence', limit: 10 })).agents.map((a) => a.handle)).toEqual([
    'old-quiet',
  ]);
}
