import type { Db } from './database.js';

interface Pending<T> {
  op: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the writes that arrive within one turn of the event loop share one
 * transaction, so a burst pays for one commit instead of one each. Each write runs in its
 * own savepoint, so a refused write (a conflict, a quota) rolls back alone. A write's
 * promise settles only after the commit that holds it, so an answer never runs ahead of the disk.
 */
export function groupCommit<T>(db: Db, apply: (op: T) => void, committed: (op: T) => void = () => {}): (op: T) => Promise<void> {
  const one = db.transaction(apply); // nested in `all`, better-sqlite3 runs it as a SAVEPOINT
  const all = db.transaction((ops: T[]) =>
    ops.map((op) => {
      try {
        one(op);
        return undefined;
      } catch (e) {
        return e ?? new Error('write failed');
      }
    }),
  );
  let queue: Pending<T>[] = [];

  const flush = () => {
    const batch = queue;
    queue = [];
    let outcomes: unknown[];
    try {
      outcomes = all.immediate(batch.map((p) => p.op));
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    batch.forEach((p, i) => {
      if (outcomes[i] !== undefined) return p.reject(outcomes[i]);
      committed(p.op);
      p.resolve();
    });
  };

  return (op) =>
    new Promise<void>((resolve, reject) => {
      if (queue.push({ op, resolve, reject }) === 1) setImmediate(flush);
    });
}
