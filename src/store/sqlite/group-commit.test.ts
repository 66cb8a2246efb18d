import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { groupCommit, HalfWritten, MAX_BATCH } from './group-commit.js';

type Op = { id: number; fail?: 'before' | 'half' };

function setup() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO t (id) VALUES (?)');
  const ends: boolean[] = [];
  const write = groupCommit<Op>(
    db,
    (op) => {
      if (op.fail === 'before') throw new Error(`refused ${op.id}`);
      insert.run(op.id);
      if (op.fail === 'half') throw new HalfWritten(new Error(`broke ${op.id}`));
    },
    { ended: (committed) => ends.push(committed) },
  );
  const ids = () => db.prepare('SELECT id FROM t ORDER BY id').pluck().all();
  return { write, ids, ends };
}

describe('group commit', () => {
  it('a write refused before it wrote fails alone; the others in its batch stand', async () => {
    const { write, ids, ends } = setup();
    const results = await Promise.allSettled([write({ id: 1 }), write({ id: 2, fail: 'before' }), write({ id: 3 })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(ids()).toEqual([1, 3]);
    expect(ends).toEqual([true]);
  });

  it('a write that failed half-way rolls back its whole batch, and every write in it fails', async () => {
    const { write, ids, ends } = setup();
    const results = await Promise.allSettled([write({ id: 1 }), write({ id: 2, fail: 'half' }), write({ id: 3 })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('broke 2');
    expect(ids()).toEqual([]);
    await write({ id: 4 }); // the next batch is fine
    expect(ids()).toEqual([4]);
    expect(ends).toEqual([false, true]);
  });

  it('a burst larger than one batch commits in several transactions, with other work let in between', async () => {
    const { write, ids, ends } = setup();
    const count = MAX_BATCH * 2 + 10;
    const order: string[] = [];
    const writes = Array.from({ length: count }, (_, i) =>
      write({ id: i + 1 }).then(() => {
        if (i === 0 || i === count - 1) order.push(i === 0 ? 'first batch' : 'last batch');
      }),
    );
    setImmediate(() => setImmediate(() => order.push('other work')));
    await Promise.all(writes);
    expect(ids()).toHaveLength(count);
    expect(ends).toEqual([true, true, true]);
    expect(order).toEqual(['first batch', 'other work', 'last batch']);
  });
});
