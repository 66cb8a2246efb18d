/**
 * Group commit on PostgreSQL (group-commit.ts): the task writes of one turn of the event loop
 * commit as one transaction; a refused member sinks none of the others, which commit as the next
 * group; a member of two groups that failed runs alone; and groups of two stores
 * (two processes) that lock the same rows in opposite orders never deadlock.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../../test/helpers/postgres.js';
import { StoreConflict, type Store, type TaskWrite } from '../store.js';
import { openPostgresStore } from './postgres-store.js';
import { newTask, T0 } from './task-write.fixture.js';

const receipt = (key: string, taskId: string) => ({ scope: 'group', key, fingerprint: 'f', result: { taskId } });

describe.skipIf(!testPostgres)('group commit on PostgreSQL', () => {
  let database: { url: string; drop: () => Promise<void> };
  /** Each commit's size, per store. */
  const commits: [number[], number[]] = [[], []];
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    database = await freshPostgresDatabase('group-commit');
    a = await openPostgresStore(database.url, { log: () => {}, observe: (_s, writes) => commits[0].push(writes) });
    b = await openPostgresStore(database.url, { log: () => {}, observe: (_s, writes) => commits[1].push(writes) });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });
  const observed = (i: 0 | 1, during: () => Promise<unknown>) => {
    commits[i].length = 0;
    return during().then(() => [...commits[i]]);
  };

  it('commits the writes asked for in one turn as one transaction', async () => {
    const writes = Array.from({ length: 6 }, () => newTask());
    const sizes = await observed(0, () => Promise.all(writes.map((w) => a.createTask(w))));
    expect(sizes).toEqual([6]);
    for (const w of writes)
      expect((await b.getTask(w.record.id, { includeArtifacts: false }))?.history).toHaveLength(1);
  });

  it('answers a refused member with its own error and commits the others of its group', async () => {
    const taken = newTask({}, { receipt: receipt(`k-${randomUUID()}`, 'first') });
    await a.createTask(taken);
    const writes = Array.from({ length: 5 }, (_, i) =>
      newTask({}, i === 2 ? { receipt: taken.receipt! } : { receipt: receipt(`k-${randomUUID()}`, `n${i}`) }),
    );
    let results: PromiseSettledResult<unknown>[] = [];
    const sizes = await observed(
      0,
      async () => (results = await Promise.allSettled(writes.map((w) => a.createTask(w)))),
    );
    // The group rolled back whole; the refused member ran again alone, the four others as the next group.
    expect(sizes).toEqual([4]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toEqual(expect.objectContaining({ what: 'receipt' }));
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflict);
    for (const [i, w] of writes.entries()) {
      const stored = await b.getTask(w.record.id, { includeArtifacts: false });
      if (i === 2) expect(stored).toBeUndefined();
      else expect(stored?.record.version).toBe(1);
    }
    expect(await b.getReceipt('group', taken.receipt!.key)).toMatchObject({ result: { taskId: 'first' } });
  });

  it('runs alone a member whose group failed a second time', async () => {
    const taken = newTask({}, { receipt: receipt(`k-${randomUUID()}`, 'first') });
    await a.createTask(taken);
    // Two refused members: the first sinks the group, the second the group the others made next.
    const refused = new Set([1, 3]);
    const writes = Array.from({ length: 4 }, (_, i) => newTask({}, refused.has(i) ? { receipt: taken.receipt! } : {}));
    let results: PromiseSettledResult<unknown>[] = [];
    const sizes = await observed(
      0,
      async () => (results = await Promise.allSettled(writes.map((w) => a.createTask(w)))),
    );
    expect(sizes).toEqual([1, 1]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    for (const [i, w] of writes.entries())
      expect(await b.getTask(w.record.id, { includeArtifacts: false }), `write ${i}`)[
        refused.has(i) ? 'toBeUndefined' : 'toBeDefined'
      ]();
  });

  it('never deadlocks two stores whose groups take the same counters and task rows in opposite orders', async () => {
    const tasks = [newTask(), newTask()];
    await Promise.all(tasks.map((w) => a.createTask(w)));
    const keys = [`q1-${randomUUID()}`, `q2-${randomUUID()}`];
    const charge = (key: string) => [{ key, windowStart: T0, limit: 1_000 }];
    const entry = (task: TaskWrite, author: string) => ({
      entry: { taskId: task.record.id, author, id: `e-${author}`, body: {}, createdAt: T0 },
      whileState: 'TASK_STATE_WORKING' as const,
      max: 1_000,
    });
    const rounds = 12;
    commits[0].length = 0;
    commits[1].length = 0;
    for (let round = 0; round < rounds; round++) {
      // a locks counter 1 then 2 and task 1 then 2; b the other way round, in the same instant.
      const [first, second] = round % 2 ? [keys, [...keys].reverse()] : [[...keys].reverse(), keys];
      const [tFirst, tSecond] = round % 2 ? [tasks, [...tasks].reverse()] : [[...tasks].reverse(), tasks];
      await Promise.all([
        ...first.map((key) => a.createTask(newTask({}, { quotas: charge(key) }))),
        ...second.map((key) => b.createTask(newTask({}, { quotas: charge(key) }))),
        ...tFirst.map((t) => a.addEntry(entry(t, `a${round}`))),
        ...tSecond.map((t) => b.addEntry(entry(t, `b${round}`))),
      ]);
    }
    // A deadlock would have rolled a group back and run its members alone (commits of one).
    expect(commits[0]).toEqual(Array(rounds).fill(4));
    expect(commits[1]).toEqual(Array(rounds).fill(4));
    for (const key of keys) expect(await a.quotaUsed(key, T0)).toBe(2 * rounds);
    for (const t of tasks) expect(await b.entries(t.record.id)).toHaveLength(2 * rounds);
  });
});
