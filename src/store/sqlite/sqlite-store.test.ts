import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cached } from '../cached/cached-store.js';
import { holdsAndRanksSuite } from '../holds-and-ranks.suite.js';
import { openKeysSuite } from '../open-keys.suite.js';
import { taskPathsSuite } from '../task-paths.suite.js';
import { artifactsSuite } from '../artifacts.suite.js';
import { spacesSuite } from '../spaces.suite.js';
import { boardsSuite } from '../boards.suite.js';
import { inboxSuite } from '../inbox.suite.js';
import { statusSuite } from '../status.suite.js';
import { expectUpgraded, ROWS_BEFORE } from '../rank-and-holder-upgrade.fixture.js';
import { expectKeyed, ROWS_UNKEYED } from '../open-key-upgrade.fixture.js';
import { kindMigrationInputs } from '../../hub/kinds.js';
import { AGENTS_BEFORE_PROFILES, expectSearchable } from '../agent-profile-upgrade.fixture.js';
import { AGENTS_BEFORE_OPERATORS, expectOperatorsAfter } from '../operators-upgrade.fixture.js';
import { storeSuite } from '../store.suite.js';
import { newTask } from '../task-writes.fixture.js';
import { deliveriesSuite } from '../deliveries.suite.js';
import { visibilitySuite } from '../visibility.suite.js';
import { OPEN_KEY_HOLDS } from '../rows.js';
import { MIGRATIONS } from './migrations.js';
import { openSqliteStore } from './sqlite-store.js';
import { SEARCH_BY_TEXT } from './identity.js';
import { KIND_MODULES } from '../../kinds/server.js';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'muster-store-')), 'store.db');

const fileStore = async () => {
  const file = freshFile();
  return { store: openSqliteStore(file), reopen: async () => openSqliteStore(file) };
};
storeSuite('sqlite', fileStore);
deliveriesSuite('sqlite', fileStore);
// The hub runs SQLite under the cache, which keeps tasks, their push configs and their entries.
const cachedFileStore = async () => {
  const { store, reopen } = await fileStore();
  return { store: cached(store), reopen: async () => cached(await reopen()) };
};
storeSuite('sqlite, cached', cachedFileStore);
deliveriesSuite('sqlite, cached', cachedFileStore);
holdsAndRanksSuite('sqlite', fileStore);
openKeysSuite('sqlite', async () => openSqliteStore(freshFile()));
// The hub runs SQLite under the cache: a refused create must leave nothing in it.
openKeysSuite('sqlite, cached', async () => cached(openSqliteStore(freshFile())));
taskPathsSuite('sqlite', async () => openSqliteStore(freshFile()));
artifactsSuite('sqlite', async () => openSqliteStore(freshFile()));

spacesSuite('sqlite', async () => openSqliteStore(freshFile()));
boardsSuite('sqlite', async () => openSqliteStore(freshFile()));
inboxSuite('sqlite', async () => openSqliteStore(freshFile()));
statusSuite('sqlite', async () => openSqliteStore(freshFile()));
visibilitySuite('sqlite', async () => {
  const store = openSqliteStore(freshFile());
  return { store, done: () => store.close() };
});
// The hub runs SQLite under the cache: spaces must pass through it, read from the file every time.
spacesSuite('sqlite, cached', async () => cached(openSqliteStore(freshFile())));

/** SQLite's plan for `sql` on the migrated schema. */
function planOf(sql: string): string {
  const file = freshFile();
  openSqliteStore(file).close();
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
  } finally {
    db.close();
  }
}

const CLAIMABLE = "SELECT * FROM tasks WHERE context_id = 's' AND kind = 'intent' AND state = 'TASK_STATE_SUBMITTED'";

describe('sqlite query plans', () => {
  it("reads a task's events through the event log's key", () => {
    expect(planOf("SELECT seq, body FROM events WHERE task_id = 't' AND seq > 0 ORDER BY seq LIMIT 5")).toBe(
      'SEARCH events USING INDEX sqlite_autoindex_events_1 (task_id=? AND seq>?)',
    );
  });

  // Keyset pages stay fast at a million tasks only if every list walks an index in order.
  const lists: [string, string][] = [
    [
      'inbox',
      "SELECT * FROM tasks WHERE target = 'b' AND (updated_at, id) < (1, 'x') ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    [
      'inbox by state',
      "SELECT * FROM tasks WHERE target = 'b' AND state = 'TASK_STATE_WORKING' AND (updated_at, id) < (1, 'x') ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    [
      'sent',
      "SELECT * FROM tasks WHERE sender = 'a' AND target IS NOT NULL ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    ['between', "SELECT * FROM tasks WHERE sender = 'a' AND target = 'b' ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['context', "SELECT * FROM tasks WHERE context_id = 'c' ORDER BY updated_at DESC, id DESC LIMIT 21"],
    [
      'space intents',
      "SELECT * FROM tasks WHERE context_id = 's' AND kind = 'intent' AND (updated_at, id) < (1, 'x') ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    ['public', "SELECT * FROM tasks WHERE visibility = 'public' ORDER BY updated_at DESC, id DESC LIMIT 21"],
    [
      'public by state',
      "SELECT * FROM tasks WHERE visibility = 'public' AND state = 'TASK_STATE_WORKING' ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    [
      'received at the hub base',
      "SELECT * FROM tasks WHERE target = 'a' AND sender IS NOT 'a' ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    [
      'sent to no target, private (memory calls)',
      "SELECT * FROM tasks WHERE sender = 'a' AND target IS NULL AND visibility = 'participants' ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    [
      'held by a worker',
      "SELECT * FROM tasks WHERE holder = 'w' AND kind = 'intent' AND held_until > 5 ORDER BY updated_at DESC, id DESC LIMIT 21",
    ],
    // by rank (order.ts): from the start; after a cursor, the rest of its rank, then the ranks below it
    ['claimable intents', `${CLAIMABLE} ORDER BY rank DESC, created_at, id LIMIT 21`],
    [
      'claimable intents in the rank of a cursor',
      `${CLAIMABLE} AND rank = 3 AND (created_at, id) > (5, 'x') ORDER BY rank DESC, created_at, id LIMIT 21`,
    ],
    [
      'claimable intents below the rank of a cursor',
      `${CLAIMABLE} AND rank < 3 ORDER BY rank DESC, created_at, id LIMIT 21`,
    ],
  ];
  it("an open key is looked up by its index (the lookup repeats the index's condition, OPEN_KEY_HOLDS)", () => {
    expect(planOf(`SELECT id FROM tasks WHERE open_key = 'k' AND ${OPEN_KEY_HOLDS}`)).toMatch(
      /USING (COVERING )?INDEX tasks_open_key/,
    );
  });

  it("the tasks that wrote a path walk task_paths' key backwards, with no sort (tasksThatWrote)", () => {
    const plan = planOf(
      "SELECT task_id FROM task_paths WHERE context_id = 's' AND path = 'a.ts' ORDER BY written_at DESC, task_id DESC LIMIT 21",
    );
    expect(plan).toMatch(/SEARCH task_paths USING PRIMARY KEY \(context_id=\? AND path=\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it("the directory's text search reads the full-text index and each agent by its rowid, never scanning agents", () => {
    const plan = planOf(SEARCH_BY_TEXT.replace(/@match|@names/g, `'"transl"*'`).replace(/@\w+/g, 'NULL'));
    expect(plan).toMatch(/SCAN agent_search VIRTUAL TABLE INDEX/);
    expect(plan).toMatch(/SEARCH a USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan).not.toMatch(/SCAN a\b/);
  });

  it("an author's entries walk their index backwards, with no sort (entriesBy)", () => {
    const plan = planOf(
      "SELECT * FROM task_entries WHERE author = 'a' ORDER BY created_at DESC, task_id DESC LIMIT 50",
    );
    expect(plan).toMatch(/SEARCH task_entries USING INDEX task_entries_by_author \(author=\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it('public tasks created per hour walk the public index over the tasks updated since the span began', () => {
    expect(
      planOf(
        "SELECT (created_at - 5) / 3600000 AS bucket, COUNT(*) FROM tasks WHERE updated_at >= 5 AND created_at >= 5 AND created_at < 9 AND ((visibility = 'public')) GROUP BY bucket",
      ),
    ).toMatch(/USING (COVERING )?INDEX tasks_public /);
  });

  it("a space's claimable intents walk tasks_by_rank, which holds intents alone (the query repeats its condition)", () => {
    expect(planOf(`${CLAIMABLE} ORDER BY rank DESC, created_at, id LIMIT 21`)).toMatch(/USING INDEX tasks_by_rank /);
  });

  it.each(lists)('the %s list uses an index and no sort', (_name, sql) => {
    const plan = planOf(sql);
    expect(plan).toMatch(/USING (COVERING )?INDEX/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  // totalSize counts a whole scope: it must not read a row per task.
  const counts: [string, string][] = [
    ['inbox', "SELECT COUNT(*) FROM tasks WHERE target = 'b'"],
    ['sent', "SELECT COUNT(*) FROM tasks WHERE sender = 'a' AND target IS NOT NULL"],
    ['received at the hub base', "SELECT COUNT(*) FROM tasks WHERE target = 'a' AND sender IS NOT 'a'"],
    [
      'sent to no target, private',
      "SELECT COUNT(*) FROM tasks WHERE sender = 'a' AND target IS NULL AND visibility = 'participants'",
    ],
    ['public by state', "SELECT COUNT(*) FROM tasks WHERE visibility = 'public' AND state = 'TASK_STATE_WORKING'"],
    [
      'inbox in some states',
      "SELECT COUNT(*) FROM tasks WHERE target = 'b' AND state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')",
    ],
    [
      'public in some states',
      "SELECT COUNT(*) FROM tasks WHERE visibility = 'public' AND state IN ('TASK_STATE_WORKING', 'TASK_STATE_COMPLETED')",
    ],
    [
      'claimable intents',
      "SELECT COUNT(*) FROM tasks WHERE context_id = 's' AND kind = 'intent' AND state IN ('TASK_STATE_SUBMITTED')",
    ],
  ];
  it.each(counts)('the %s count reads only an index', (_name, sql) => {
    const plan = planOf(sql);
    expect(plan).toMatch(/USING COVERING INDEX/);
  });
});

/** A file migrated up to `version` only, as an older hub left it; `fill` writes into it before it closes. */
function fileAt(version: number, fill: (db: Database.Database) => void): string {
  const file = freshFile();
  const old = new Database(file);
  old.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    old.exec(m.sql);
    old.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, 0);
  }
  fill(old);
  old.close();
  return file;
}

/** Fills a file's tasks table with `rows` (column names as keys), as a version before the one under test wrote them. */
const insertTasks = (rows: readonly Record<string, unknown>[]) => (db: Database.Database) => {
  const columns = Object.keys(rows[0]!);
  const insert = db.prepare(
    `INSERT INTO tasks (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  );
  for (const row of rows) insert.run(row);
};

describe('sqlite migrations', () => {
  it('migration 11 gives the intents of a file written before it their rank and hold, from their metadata', async () => {
    const store = openSqliteStore(fileAt(10, insertTasks(ROWS_BEFORE)));
    await expectUpgraded(store);
    await store.close();
  });

  it('migration 13 gives the open intents of a file written before it their open keys, the oldest of twins taking it', async () => {
    const store = openSqliteStore(fileAt(12, insertTasks(ROWS_UNKEYED)), {
      inputs: kindMigrationInputs(KIND_MODULES),
    }); // the kinds' open keys, as a hub hands them
    await expectKeyed(store);
    await store.close();
  });

  it('migration 14 gives the agents of a file written before it their search columns', async () => {
    const file = fileAt(13, (db) => {
      const insert = db.prepare(
        'INSERT INTO agents (handle, name, description, endpoint, created_at) VALUES (@handle, @name, @description, @endpoint, @created_at)',
      );
      for (const row of AGENTS_BEFORE_PROFILES) insert.run(row);
    });
    const store = openSqliteStore(file);
    await expectSearchable(store);
    await store.close();
  });

  it('migration 15 keeps the handles of a file written before it: no operator takes one; operators and pauses work after', async () => {
    const file = fileAt(14, (db) => {
      const insert = db.prepare(
        'INSERT INTO agents (handle, name, description, endpoint, created_at) VALUES (@handle, @name, @description, @endpoint, @created_at)',
      );
      for (const row of AGENTS_BEFORE_OPERATORS) insert.run(row);
    });
    const store = openSqliteStore(file);
    await expectOperatorsAfter(store);
    await store.close();
  });

  it('migration 31 keeps the events of a file written before it, in order; a large event stays in its page', async () => {
    const file = fileAt(30, (old) => {
      const insert = old.prepare('INSERT INTO events (task_id, seq, body, created_at) VALUES (?, ?, ?, ?)');
      for (const seq of [2, 1, 3]) insert.run('t', seq, JSON.stringify({ statusUpdate: { n: seq } }), seq);
    });
    const store = openSqliteStore(file);
    expect(await store.eventsAfter('t', 0, 10)).toEqual(
      [1, 2, 3].map((seq) => ({ seq, event: { statusUpdate: { n: seq } } })),
    );
    expect(await store.eventsAfter('t', 1, 1)).toEqual([{ seq: 2, event: { statusUpdate: { n: 2 } } }]);
    // About 3 KB, as an evaluation or a model's answer: a WITHOUT ROWID row spilled past 1,000 bytes.
    const message = { messageId: 'm', role: 'ROLE_USER' as const, parts: [{ text: 'x'.repeat(3_000) }] };
    const big = { ...newTask(), events: [{ message }] };
    await store.createTask(big);
    expect(await store.eventsAfter(big.record.id, 0, 10)).toEqual([{ seq: 1, event: { message } }]);
    await store.close();
    const db = new Database(file, { readonly: true });
    const overflow = "SELECT COUNT(*) FROM dbstat WHERE name = 'events' AND pagetype = 'overflow'";
    expect(db.prepare(overflow).pluck().get()).toBe(0);
    db.close();
  });

  it('migration 8 keeps the receipts of a file written before it, findable and still refusing their keys', async () => {
    const file = fileAt(7, (old) => {
      const insert = old.prepare(
        'INSERT INTO receipts (scope, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)',
      );
      insert.run('message:ann', 'later', 'f2', JSON.stringify({ taskId: 't2' }), 2);
      insert.run('message:ann', 'earlier', 'f1', JSON.stringify({ taskId: 't1' }), 1);
    });

    const store = openSqliteStore(file);
    expect(await store.getReceipt('message:ann', 'earlier')).toEqual({
      scope: 'message:ann',
      key: 'earlier',
      fingerprint: 'f1',
      result: { taskId: 't1' },
    });
    expect(await store.getReceipt('message:ann', 'later')).toMatchObject({ result: { taskId: 't2' } });
    const retry = {
      record: {
        id: 'x',
        kind: 'direct',
        contextId: 'c',
        visibility: 'participants' as const,
        state: 'TASK_STATE_SUBMITTED' as const,
        statusAt: 3,
        createdAt: 3,
        updatedAt: 3,
        messageCount: 0,
        artifactCount: 0,
        version: 1,
        lastSeq: 0,
      },
      newMessages: [],
      newArtifacts: [],
      events: [],
    };
    await expect(
      store.createTask({ ...retry, receipt: { scope: 'message:ann', key: 'earlier', fingerprint: 'f1', result: {} } }),
    ).rejects.toMatchObject({ what: 'receipt' });
    await store.prune(2); // the older one goes, in time order
    expect(await store.getReceipt('message:ann', 'earlier')).toBeUndefined();
    expect(await store.getReceipt('message:ann', 'later')).toBeDefined();
    await store.close();
  });
});
