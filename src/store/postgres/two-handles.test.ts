/**
 * Two store objects on one database stand for two hub processes: what one store promises must
 * hold across them (receipts, compare-and-set, quotas, leases, entry rules), with nothing held in
 * either process to help. What one hears of the other's writes is two-handles-notices.test.ts.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../../test/helpers/postgres.js';
import { QuotaExceeded, StoreConflict, type Store } from '../store.js';
import { MIGRATIONS } from './migrations.js';
import { NO_MIGRATION_INPUTS } from '../open-key-backfill.js';
import { migratePostgres, openPostgresStore } from './postgres-store.js';
import { bump, draft, openTwoStores, outcomes, sql, type TwoStores } from './two-handles.fixture.js';
import { newTask, T0 } from './task-write.fixture.js';
import { EXPIRED_RECEIPTS } from './receipts.js';

describe.skipIf(!testPostgres)('two stores on one PostgreSQL database', () => {
  let two: TwoStores | undefined;
  let database: TwoStores['database'];
  let a: Store;
  let b: Store;
  beforeAll(async () => void ({ database, a, b } = two = await openTwoStores('two-handles')));
  afterAll(() => two?.close());

  it('keeps one write per receipt key across both', async () => {
    const receipt = (taskId: string) => ({ scope: 'two', key: 'same', fingerprint: 'f', result: { taskId } });
    const [x, y] = [newTask(), newTask()];
    const results = await Promise.allSettled([
      a.createTask({ ...x, receipt: receipt(x.record.id) }),
      b.createTask({ ...y, receipt: receipt(y.record.id) }),
    ]);
    const { stood, refused } = outcomes(results);
    expect(stood).toBe(1);
    expect(refused).toEqual([expect.objectContaining({ what: 'receipt' })]);
    const winner = results[0]!.status === 'fulfilled' ? x : y;
    const loser = winner === x ? y : x;
    expect(await b.getReceipt('two', 'same')).toMatchObject({ result: { taskId: winner.record.id } });
    expect(await a.getTask(loser.record.id, { includeArtifacts: false })).toBeUndefined();
    expect(await a.eventsAfter(loser.record.id, 0, 10)).toEqual([]);
  });

  it('prunes every receipt written before the cut and no other, whatever order two clocks appended them in', async () => {
    // 60,000 receipts, alternately from a node on time and one five minutes behind, so time and
    // heap order disagree; several block ranges, summarized as the autovacuum would.
    await sql(
      database.url,
      `INSERT INTO receipts (scope, key, fingerprint, result, created_at)
       SELECT 'bulk', 'k' || i, 'f', '{}', $1::int8 + i * 10 - (i % 2) * 300000 FROM generate_series(1, 60000) i`,
      [T0],
    );
    await sql(database.url, "SELECT brin_summarize_new_values('receipts_by_time')");
    const cut = T0 + 450_000;
    const late = newTask({ updatedAt: cut - 1 });
    const onTime = newTask({ updatedAt: cut });
    await a.createTask({ ...late, receipt: { scope: 'two', key: 'late', fingerprint: 'f', result: {} } });
    await b.createTask({ ...onTime, receipt: { scope: 'two', key: 'on-time', fingerprint: 'f', result: {} } });
    const count = async (where: string) =>
      Number(
        (await sql<{ n: string }>(database.url, `SELECT count(*) AS n FROM receipts WHERE ${where}`, [cut]))[0]!.n,
      );
    const kept = await count('created_at >= $1');
    expect(await count('created_at < $1')).toBeGreaterThan(20_000); // more than one slice of the prune

    await a.prune(cut);
    expect(await count('created_at < $1')).toBe(0);
    expect(await count('created_at >= $1')).toBe(kept);
    expect(await b.getReceipt('two', 'late')).toBeUndefined();
    expect(await b.getReceipt('two', 'on-time')).toMatchObject({ key: 'on-time' });
    await sql(database.url, "DELETE FROM receipts WHERE scope = 'bulk'");
  });

  it('finds expired receipts through the block ranges of receipts_by_time', async () => {
    // On a small table a sequential scan costs least; what matters is that the index can be walked.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${EXPIRED_RECEIPTS}`, [5, 10]);
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Bitmap Index Scan on receipts_by_time/);
    } finally {
      await client.end();
    }
  });

  it('runs works under one lock one at a time across both: of checks-then-creates racing through both, one creates', async () => {
    for (let round = 0; round < 5; round++) {
      const context = `locked-${randomUUID()}`;
      const scope = { anyOf: [{ contextId: { in: [context] } }] };
      const works = [a, b, a, b, a, b].map((store) =>
        store.underLock(`lock-${context}`, async (tasks) => {
          if ((await tasks.listTasks({ scope, limit: 5, includeArtifacts: false })).tasks.length > 0) return 'found';
          await tasks.createTask(newTask({ contextId: context }));
          return 'created';
        }),
      );
      expect((await Promise.all(works)).filter((w) => w === 'created')).toHaveLength(1);
      expect((await b.listTasks({ scope, limit: 5, includeArtifacts: false })).tasks).toHaveLength(1);
    }
  });

  it('lets exactly one of two compare-and-set updates from one version win', async () => {
    const w = newTask();
    await a.createTask(w);
    const results = await Promise.allSettled([a.updateTask(bump(w, 'via-a')), b.updateTask(bump(w, 'via-b'))]);
    const { stood, refused } = outcomes(results);
    expect(stood).toBe(1);
    expect(refused).toEqual([expect.objectContaining({ what: 'version' })]);
    const got = await b.getTask(w.record.id, { includeArtifacts: false });
    expect(got?.record.version).toBe(2);
    expect(got?.history).toHaveLength(2);
    expect((await a.eventsAfter(w.record.id, 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('never lets a quota window pass its limit, however the charges are spread', async () => {
    const limit = 7;
    const quota = { key: `q-${randomUUID()}`, windowStart: T0, limit };
    const writes = Array.from({ length: 2 * limit }, (_, i) =>
      (i % 2 ? a : b).createTask({ ...newTask(), quotas: [quota] }),
    );
    const { stood, refused } = outcomes(await Promise.allSettled(writes));
    expect(stood).toBe(limit);
    expect(refused).toHaveLength(limit);
    expect(refused.every((e) => e instanceof QuotaExceeded)).toBe(true);
    expect(await sql(database.url, 'SELECT used FROM quota_counters WHERE key = $1', [quota.key])).toEqual([
      { used: limit },
    ]);
  });

  it('writes exactly max entries however many authors race through both', async () => {
    const w = newTask();
    await a.createTask(w);
    const max = 5;
    const entry = (author: string) => ({
      entry: { taskId: w.record.id, author, id: `e-${author}`, body: { by: author }, createdAt: T0 },
      whileState: 'TASK_STATE_WORKING' as const,
      max,
    });
    const writes = Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).addEntry(entry(`author-${i}`)));
    const { stood, refused } = outcomes(await Promise.allSettled(writes));
    expect(stood).toBe(max);
    expect(refused.every((e) => e instanceof StoreConflict && e.what === 'entry-full')).toBe(true);
    expect(await b.entries(w.record.id)).toHaveLength(max);
    const positions = await sql<{ position: number }>(
      database.url,
      'SELECT position FROM task_entries WHERE task_id = $1 ORDER BY position',
      [w.record.id],
    );
    expect(positions.map((p) => p.position)).toEqual([0, 1, 2, 3, 4]);
    // one author racing itself through both stores gets one entry
    const other = newTask();
    await b.createTask(other);
    const same = { ...entry('solo'), entry: { ...entry('solo').entry, taskId: other.record.id } };
    const twice = outcomes(await Promise.allSettled([a.addEntry(same), b.addEntry(same)]));
    expect(twice.stood).toBe(1);
    expect(twice.refused).toEqual([expect.objectContaining({ what: 'entry-exists' })]);
  });

  it('lets one of two updates that each carry an entry stand, under the entry rule', async () => {
    const w = newTask();
    await a.createTask(w);
    const answer = (author: string) => ({
      ...bump(w, author),
      entry: {
        entry: { taskId: w.record.id, author, id: `e-${author}`, body: {}, createdAt: T0 },
        whileState: 'TASK_STATE_WORKING' as const,
        max: 1,
      },
    });
    const { stood, refused } = outcomes(
      await Promise.allSettled([a.updateTask(answer('x')), b.updateTask(answer('y'))]),
    );
    expect(stood).toBe(1);
    expect(refused).toEqual([expect.any(StoreConflict)]);
    expect(['version', 'entry-full']).toContain((refused[0] as StoreConflict).what);
    expect(await a.entries(w.record.id)).toHaveLength(1);
    expect((await b.getTask(w.record.id, { includeArtifacts: false }))?.record.version).toBe(2);
  });

  it('leases each item of due work to one of two concurrent claimers', async () => {
    const tasks = Array.from({ length: 30 }, (_, i) => newTask({}, { dueAt: T0 + i }));
    for (const w of tasks) await a.createTask(w);
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 ? a.claimDue('owner-a', T0 + 100, T0 + 10_000, 5) : b.claimDue('owner-b', T0 + 100, T0 + 10_000, 5),
      ),
    );
    const claimed = claims.flat().map((d) => d.taskId);
    expect(new Set(claimed).size).toBe(claimed.length); // nothing twice
    expect(new Set(claimed)).toEqual(new Set(tasks.map((t) => t.record.id)));
    for (const [i, batch] of claims.entries())
      for (const d of batch) await (i % 2 ? a : b).finishDue(d.taskId, i % 2 ? 'owner-a' : 'owner-b');
    expect(await a.nextDue()).toBeUndefined();
  });

  it('passes an expired lease on due work to the other, and only its new holder finishes it', async () => {
    const w = newTask({}, { dueAt: T0 + 1_000 });
    await a.createTask(w);
    expect(await a.claimDue('owner-a', T0 + 1_000, T0 + 1_010, 10)).toEqual([
      { taskId: w.record.id, dueAt: T0 + 1_000 },
    ]);
    expect(await b.claimDue('owner-b', T0 + 1_005, T0 + 2_000, 10)).toEqual([]); // still leased
    expect(await b.claimDue('owner-b', T0 + 1_020, T0 + 2_000, 10)).toEqual([
      { taskId: w.record.id, dueAt: T0 + 1_000 },
    ]);
    await a.finishDue(w.record.id, 'owner-a'); // no longer the holder: nothing happens
    expect(await b.nextDue()).toBe(T0 + 1_000);
    // a write by the old holder is refused whole; the new holder's stands and removes the work
    await expect(a.updateTask({ ...bump(w, 'late'), dueDone: 'owner-a' })).rejects.toMatchObject({ what: 'lease' });
    expect((await a.getTask(w.record.id, { includeArtifacts: false }))?.record.version).toBe(1);
    await b.updateTask({ ...bump(w, 'done'), dueDone: 'owner-b' });
    expect(await a.nextDue()).toBeUndefined();
  });

  it('leases each delivery once, one per channel in order, and refuses an outcome from anyone but the holder', async () => {
    const now = T0 + 5_000;
    const tasks = Array.from({ length: 12 }, () => newTask({ updatedAt: now }));
    for (const w of tasks)
      await a.createTask({
        ...w,
        deliveries: [draft(w.record.id, 'ch', 1), draft(w.record.id, 'ch', 2), draft(w.record.id, 'other', 1)],
      });
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? a : b).claimDeliveries(i % 2 ? 'owner-a' : 'owner-b', now, now + 1_000, 6),
      ),
    );
    const claimed = claims.flat();
    expect(new Set(claimed.map((d) => d.id)).size).toBe(claimed.length);
    expect(claimed).toHaveLength(24); // seq 2 of each 'ch' waits for seq 1
    expect(claimed.every((d) => d.seq === 1)).toBe(true);
    const first = claims.findIndex((c) => c.some((d) => d.channel === 'ch'));
    const held = claims[first]!.find((d) => d.channel === 'ch')!; // one with a seq 2 waiting behind it
    const [holder, other] = first % 2 ? [a, b] : [b, a];
    const [owner, stranger] = first % 2 ? ['owner-a', 'owner-b'] : ['owner-b', 'owner-a'];
    const outcome = { state: 'delivered' as const, attempts: 1, nextAt: now, lastAttemptAt: now, lastStatus: 200 };
    expect(await other.finishDelivery(held.id, stranger, outcome)).toBe(false);
    expect(await holder.finishDelivery(held.id, owner, outcome)).toBe(true);
    // with seq 1 delivered, seq 2 of that channel is due; an expired lease passes to the other owner
    const next = await other.claimDeliveries(stranger, now + 2_000, now + 3_000, 100);
    expect(next.filter((d) => d.taskId === held.taskId && d.channel === held.channel).map((d) => d.seq)).toEqual([2]);
    expect(next.filter((d) => d.seq === 1)).toHaveLength(23); // every other seq 1 had its lease run out
    expect(await holder.finishDelivery(next[0]!.id, owner, outcome)).toBe(false);
    for (const d of next) expect(await other.finishDelivery(d.id, stranger, outcome)).toBe(true);
  });
});

describe.skipIf(!testPostgres)('opening an empty PostgreSQL database', () => {
  it('comes up in three processes at once, migrating once', async () => {
    const database = await freshPostgresDatabase('three-opens');
    try {
      const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore(database.url)));
      const applied = await sql<{ version: number }>(
        database.url,
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(applied.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await migratePostgres(database.url, NO_MIGRATION_INPUTS)).toEqual({ applied: [] });
      await Promise.all(stores.map((s) => s.close()));
    } finally {
      await database.drop();
    }
  });
});
