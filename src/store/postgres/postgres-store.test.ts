import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../../test/helpers/postgres.js';
import { spacesSuite } from '../spaces.suite.js';
import { storeSuite } from '../store.suite.js';
import { StoreUnavailable, type TaskQuery } from '../store.js';
import { openPostgresStore } from './postgres-store.js';
import { listStatement } from './task-reads.js';
import { taskScopes } from '../../hub/view.js';

describe.skipIf(!testPostgres)('postgres store', () => {
  let database: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    database = await freshPostgresDatabase('store-suite');
  });
  afterAll(async () => {
    await database?.drop();
  });

  // One database for the file: the suite's tests use keys, ids and owners of their own, so each
  // open() gives a new store object on the same database, and reopen() another.
  storeSuite('postgres', async () => ({
    store: await openPostgresStore(database.url),
    reopen: () => openPostgresStore(database.url),
  }));
  spacesSuite('postgres', () => openPostgresStore(database.url));

  it('is StoreUnavailable when the server cannot be reached', async () => {
    const nowhere = new URL(database.url);
    nowhere.port = '1';
    await expect(openPostgresStore(nowhere.href, { log: () => {} })).rejects.toBeInstanceOf(StoreUnavailable);
  });

  describe('query plans', () => {
    let client: pg.Client;
    beforeAll(async () => {
      await (await openPostgresStore(database.url)).close(); // migrated
      client = new pg.Client({ connectionString: database.url });
      await client.connect();
      // Only whether an index can serve each walk in order is asked: with few rows the planner would rather scan.
      await client.query('SET enable_seqscan = off');
    });
    afterAll(async () => {
      await client?.end();
    });

    const planOf = async (q: Omit<TaskQuery, 'limit' | 'includeArtifacts'>) => {
      const { s, sql } = listStatement({ limit: 20, includeArtifacts: true, historyLength: 1, ...q });
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`, s.values);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };

    // Keyset pages stay fast at a million tasks only if every branch of a list walks an index in
    // order: one index walk per branch, merged; the only sort is the final one over the page's rows.
    const lists: [string, Omit<TaskQuery, 'limit' | 'includeArtifacts'>, number][] = [
      ['inbox', { scope: taskScopes.inbox('b'), after: { updatedAt: 5, id: 'x' } }, 1],
      ['inbox by state', { scope: taskScopes.inbox('b'), states: ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] }, 2],
      ['sent', { scope: taskScopes.sent('a') }, 1],
      ['between', { scope: taskScopes.between('a', 'b') }, 2],
      ['public by state', { scope: taskScopes.public(), states: ['TASK_STATE_WORKING'] }, 1],
      ['visible at the hub base', { scope: taskScopes.visible('a'), after: { updatedAt: 5, id: 'x' } }, 3],
      ['context', { scope: taskScopes.inbox('b'), contextId: 'c' }, 1],
      ['space intents', { scope: taskScopes.space('s', ['intent']), after: { updatedAt: 5, id: 'x' } }, 1],
    ];
    it.each(lists)('the %s list walks an index per branch and sorts no table', async (_name, q, walks) => {
      const plan = await planOf(q);
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan.match(/Index Scan Backward using tasks_\w+ on tasks/g)).toHaveLength(walks);
      expect(plan.match(/^\s*(-> +)?Sort$/gm)).toHaveLength(1);
      expect(plan).toMatch(/^Sort$/m); // ...and that one sort is the page's, at the top
    });
  });
});
