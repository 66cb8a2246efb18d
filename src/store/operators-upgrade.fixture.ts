/**
 * Agents as a database held them before operators (SQLite migration 15, PostgreSQL 8): each
 * dialect's test writes these rows under its old schema, opens the store (which migrates) and
 * checks with `expectOperatorsAfter` that the agents keep their handles in the one namespace
 * (no operator may take one), own no operator and are not paused, and that the new parts work.
 */
import { expect } from 'vitest';
import { StoreConflict, type Store } from './store.js';

export const AGENTS_BEFORE_OPERATORS = [
  { handle: 'old-agent', name: 'Old Agent', description: null, endpoint: null, created_at: 10 },
];

export async function expectOperatorsAfter(store: Store): Promise<void> {
  expect(await store.getAgent('old-agent')).toEqual({
    handle: 'old-agent',
    id: expect.any(String),
    name: 'Old Agent',
    createdAt: 10,
  });
  await expect(
    store.insertOperator({ handle: 'old-agent', createdAt: 20 }, { id: 'op-token-1', hash: 'h1' }),
  ).rejects.toBeInstanceOf(StoreConflict);
  await store.insertOperator({ handle: 'new-op', name: 'New Op', createdAt: 30 }, { id: 'op-token-2', hash: 'h2' });
  expect(await store.getOperator('new-op')).toEqual({ handle: 'new-op', name: 'New Op', createdAt: 30 });
  expect(await store.findOperatorToken('h2')).toMatchObject({ id: 'op-token-2', handle: 'new-op' });
  await expect(
    store.insertAgent({ handle: 'new-op', createdAt: 40 }, { id: 'agent-token-1', hash: 'h3' }),
  ).rejects.toBeInstanceOf(StoreConflict);
  await store.insertAgent({ handle: 'owned', operator: 'new-op', createdAt: 50 }, { id: 'agent-token-2', hash: 'h4' });
  expect(await store.operatorAgents('new-op')).toEqual(['owned']);
  expect(await store.setPause('old-agent', { at: 60, by: 'admin' })).toMatchObject({ paused: { at: 60, by: 'admin' } });
  expect((await store.setPause('old-agent', undefined))?.paused).toBeUndefined();
}
