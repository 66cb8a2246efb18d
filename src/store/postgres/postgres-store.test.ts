import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../../test/helpers/postgres.js';
import { holdsAndRanksSuite } from '../holds-and-ranks.suite.js';
import { openKeysSuite } from '../open-keys.suite.js';
import { taskPathsSuite } from '../task-paths.suite.js';
import { artifactsSuite } from '../artifacts.suite.js';
import { expectUpgraded, ROWS_BEFORE } from '../rank-and-holder-upgrade.fixture.js';
import { expectKeyed, ROWS_UNKEYED } from '../open-key-upgrade.fixture.js';
import { kindMigrationInputs } from '../../hub/kinds.js';
import { AGENTS_BEFORE_PROFILES, expectSearchable } from '../agent-profile-upgrade.fixture.js';
import { AGENTS_BEFORE_OPERATORS, expectOperatorsAfter } from '../operators-upgrade.fixture.js';
import { spacesSuite } from '../spaces.suite.js';
import { boardsSuite } from '../boards.suite.js';
import { inboxSuite } from '../inbox.suite.js';
import { statusSuite } from '../status.suite.js';
import { storeSuite } from '../store.suite.js';
import { deliveriesSuite } from '../deliveries.suite.js';
import { visibilitySuite } from '../visibility.suite.js';
import { StoreUnavailable, type Store, type TaskOrdering, type TaskSelection } from '../store.js';
import { MIGRATIONS } from './migrations.js';
import { openPostgresStore } from './postgres-store.js';
import { listStatement } from './task-reads.js';
import { OPEN_KEY_HOLDS } from '../rows.js';
import { taskScopes } from '../../hub/view.js';
import { scopeAt } from '../../hub/view-scopes.fixture.js';
import { KIND_MODULES } from '../../kinds/server.js';
import { SEARCH_BY_TEXT } from './identity.js';

/** A fresh database migrated up to `version` only, as an older hub left it; `fill` writes into it first. */
/** Opens (so migrates) a database at `version` holding what `fill` wrote, checks it with `check`, and drops it. */
async function upgradedFrom(
  version: number,
  fill: (client: pg.Client) => Promise<void>,
  check: (store: Store) => Promise<void>,
): Promise<void> {
  const old = await databaseAt(version, fill);
  try {
    const store = await openPostgresStore(old.url, { migrationInputs: kindMigrationInputs(KIND_MODULES) });
    await check(store);
    await store.close();
  } finally {
    await old.drop();
  }
}

/** Fills the tasks table with `rows` (column names as keys), as a version before the one under test wrote them. */
const insertTasks = (rows: readonly Record<string, unknown>[]) => async (client: pg.Client) => {
  const columns = Object.keys(rows[0]!);
  for (const row of rows) {
    await client.query(
      `INSERT INTO tasks (${columns.join(', ')}, changed_at) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}, 0)`,
      Object.values(row),
    );
  }
};

async function databaseAt(
  version: number,
  fill: (client: pg.Client) => Promise<void>,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = await freshPostgresDatabase(`at-${version}`);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, 0)', [
        m.version,
        m.name,
      ]);
    }
    await fill(client);
  } finally {
    await client.end();
  }
  return database;
}

// A database of its own for each round: public tasks are listed to everyone, so a round must not see another's.
describe.skipIf(!testPostgres)('postgres store, visibility', () => {
  visibilitySuite('postgres', async () => {
    const database = await freshPostgresDatabase('visibility');
    const store = await openPostgresStore(database.url);
    return { store, done: async () => (await store.close(), await database.drop()) };
  });
});

// A database of its own: the rows it writes would tip the statistics the query-plan tests below read.
describe.skipIf(!testPostgres)('postgres store, open keys', () => {
  let database: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    database = await freshPostgresDatabase('open-keys');
  });
  afterAll(async () => {
    await database?.drop();
  });
  openKeysSuite('postgres', () => openPostgresStore(database.url));
  taskPathsSuite('postgres', () => openPostgresStore(database.url));
  artifactsSuite('postgres', () => openPostgresStore(database.url));
});

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
  const onDatabase = async () => ({
    store: await openPostgresStore(database.url),
    reopen: () => openPostgresStore(database.url),
  });
  storeSuite('postgres', onDatabase);
  deliveriesSuite('postgres', onDatabase);
  holdsAndRanksSuite('postgres', onDatabase);
  spacesSuite('postgres', () => openPostgresStore(database.url));
  boardsSuite('postgres', () => openPostgresStore(database.url));
  inboxSuite('postgres', () => openPostgresStore(database.url));
  statusSuite('postgres', () => openPostgresStore(database.url));

  it('is StoreUnavailable when the server cannot be reached', async () => {
    const nowhere = new URL(database.url);
    nowhere.port = '1';
    await expect(openPostgresStore(nowhere.href, { log: () => {} })).rejects.toBeInstanceOf(StoreUnavailable);
  });

  it('migration 3 gives the intents of a database written before it their rank and hold, from their metadata', async () => {
    await upgradedFrom(2, insertTasks(ROWS_BEFORE), expectUpgraded);
  });

  it('migration 5 gives the open intents of a database written before it their open keys, the oldest of twins taking it', async () => {
    await upgradedFrom(4, insertTasks(ROWS_UNKEYED), expectKeyed);
  });

  it('migration 7 gives the agents of a database written before it their search columns', async () => {
    await upgradedFrom(
      6,
      async (client) => {
        for (const r of AGENTS_BEFORE_PROFILES) {
          await client.query(
            'INSERT INTO agents (handle, name, description, endpoint, created_at) VALUES ($1, $2, $3, $4, $5)',
            [r.handle, r.name, r.description, r.endpoint, r.created_at],
          );
        }
      },
      expectSearchable,
    );
  });

  it('migration 8 keeps the handles of a database written before it: no operator takes one; operators and pauses work after', async () => {
    await upgradedFrom(
      7,
      async (client) => {
        for (const r of AGENTS_BEFORE_OPERATORS) {
          await client.query(
            'INSERT INTO agents (handle, name, description, endpoint, created_at) VALUES ($1, $2, $3, $4, $5)',
            [r.handle, r.name, r.description, r.endpoint, r.created_at],
          );
        }
      },
      expectOperatorsAfter,
    );
  });

  // A database of its own, migrated and empty: rows the suites above write would tip its statistics.
  describe('query plans', () => {
    let client: pg.Client;
    let empty: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      empty = await freshPostgresDatabase('plans');
      await (await openPostgresStore(empty.url)).close(); // migrated
      client = new pg.Client({ connectionString: empty.url });
      await client.connect();
      // Only whether an index can serve each walk in order is asked: with few rows the planner would rather scan.
      await client.query('SET enable_seqscan = off');
    });
    afterAll(async () => {
      await client?.end();
      await empty?.drop();
    });

    it("looks an open key up by its index (the lookup repeats the index's condition, OPEN_KEY_HOLDS)", async () => {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (COSTS OFF) SELECT id FROM tasks WHERE open_key = 'k' AND ${OPEN_KEY_HOLDS}`,
      );
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index (Only )?Scan using tasks_open_key/);
    });

    it("walks task_paths' key backwards for the tasks that wrote a path, with no sort (tasksThatWrote)", async () => {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN (COSTS OFF) SELECT task_id FROM task_paths WHERE context_id = 's' AND path = 'a.ts' ORDER BY written_at DESC, task_id DESC LIMIT 21",
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index (Only )?Scan Backward using task_paths_pkey/);
      expect(plan).not.toMatch(/Sort/);
    });

    it("reads the directory's text search from the agents' GIN index", async () => {
      const values = ["'transl':*", null, null, null, null, null, 21];
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${SEARCH_BY_TEXT}`, values);
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Bitmap Index Scan on agents_search/);
    });

    it("walks an author's entries backwards on their index, with no sort (entriesBy)", async () => {
      // On an empty table a bitmap scan and a sort cost least; what matters is that the index gives the order.
      await client.query('SET enable_bitmapscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN (COSTS OFF) SELECT task_id, author, id, body, created_at FROM task_entries WHERE author = 'a' ORDER BY created_at DESC, task_id DESC LIMIT 50",
      );
      await client.query('RESET enable_bitmapscan');
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index Scan Backward using task_entries_by_author/);
      expect(plan).not.toMatch(/Sort/);
    });

    type ListShape = Omit<TaskSelection, 'limit' | 'includeArtifacts'> & TaskOrdering;
    const CLAIMABLE = {
      scope: taskScopes.space('s', ['intent']),
      states: ['TASK_STATE_SUBMITTED'],
      order: 'rank',
    } as const;
    const planOf = async (q: ListShape) => {
      const { s, sql } = listStatement({ limit: 20, includeArtifacts: true, historyLength: 1, ...q });
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`, s.values);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };

    // Keyset pages stay fast at a million tasks only if every branch of a list walks an index in
    // order: one index walk per branch, merged; the only sort is the final one over the page's rows.
    // [name, query, index walks, sorts]
    const lists: [string, ListShape, number, number][] = [
      ['inbox', { scope: taskScopes.inbox('b'), after: { updatedAt: 5, id: 'x' } }, 1, 1],
      [
        'inbox by state',
        { scope: taskScopes.inbox('b'), states: ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] },
        2,
        1,
      ],
      ['sent', { scope: taskScopes.sent('a') }, 1, 1],
      ['between', { scope: scopeAt({ kind: 'agent', handle: 'a' }, { kind: 'agent', handle: 'b' }) }, 2, 1],
      [
        "the agent's own base",
        {
          scope: scopeAt({ kind: 'agent', handle: 'b' }, { kind: 'agent', handle: 'b' }),
          after: { updatedAt: 5, id: 'x' },
        },
        1,
        1,
      ],
      ["the admin at an agent's base", { scope: scopeAt({ kind: 'admin' }, { kind: 'agent', handle: 'b' }) }, 2, 1],
      [
        "an operator at its agent's base",
        { scope: scopeAt({ kind: 'operator', handle: 'o', agents: ['b'] }, { kind: 'agent', handle: 'b' }) },
        2,
        1,
      ],
      ['the memory base', { scope: scopeAt({ kind: 'agent', handle: 'a' }, { kind: 'base', name: 'memory' }) }, 1, 1],
      ['public by state', { scope: taskScopes.public(), states: ['TASK_STATE_WORKING'] }, 1, 1],
      [
        'visible at the hub base',
        { scope: scopeAt({ kind: 'agent', handle: 'a' }, { kind: 'hub' }), after: { updatedAt: 5, id: 'x' } },
        4,
        1,
      ],
      [
        "an operator's at the hub base",
        { scope: scopeAt({ kind: 'operator', handle: 'o', agents: ['a'] }, { kind: 'hub' }) },
        4,
        1,
      ],
      ['context', { scope: taskScopes.inbox('b'), contextId: 'c' }, 1, 1],
      ['space intents', { scope: taskScopes.space('s', ['intent']), after: { updatedAt: 5, id: 'x' } }, 1, 1],
      ['claimable intents', CLAIMABLE, 1, 1],
      ['held by a worker', { scope: taskScopes.heldBy('w', ['intent']), heldAfter: 5 }, 1, 1],
      // After a cursor, the rest of its rank, then the ranks below it. The merge sorts the first
      // walk's rows too (at most a page of them): their rank is one value, which it cannot see.
      ['claimable intents after a cursor', { ...CLAIMABLE, after: { rank: 3, createdAt: 5, id: 'x' } }, 2, 2],
    ];
    // (A scope no other index leads with: on empty tables the planner would walk a scope's own partial index whole.)
    it('counts public tasks created per hour on the public index, over the tasks updated since the span began', async () => {
      await client.query(
        "PREPARE per_hour AS SELECT (created_at - $1::int8) / 3600000 AS bucket, count(*) FROM tasks WHERE updated_at >= $1::int8 AND created_at >= $1::int8 AND created_at < $2::int8 AND (visibility = 'public') GROUP BY bucket",
      );
      const { rows } = await client.query<{ 'QUERY PLAN': string }>('EXPLAIN (COSTS OFF) EXECUTE per_hour(5, 9)');
      await client.query('DEALLOCATE per_hour');
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
        /Index (Only )?Scan using tasks_public(_by_state)? on tasks\n\s+Index Cond: \(updated_at >= /,
      ); // a public index (on empty tables, either)
    });

    it.each(lists)('the %s list walks an index per branch and sorts no table', async (_name, q, walks, sorts) => {
      const plan = await planOf(q);
      expect(plan).not.toMatch(/Seq Scan/);
      // By rank the walk is forward: the index holds the rank downwards.
      const walk =
        q.order === 'rank'
          ? /Index Scan using tasks_by_rank on tasks/g
          : /Index Scan Backward using tasks_\w+ on tasks/g;
      expect(plan.match(walk)).toHaveLength(walks);
      expect(plan.match(/^\s*(-> +)?Sort$/gm)).toHaveLength(sorts);
      expect(plan).toMatch(/^Sort$/m); // ...one sort is the page's, at the top
      expect(plan).not.toMatch(/Limit\n\s*-> +Sort$/m); // ...and none is a walk's, sorting an index range for its first rows
    });
  });
});
