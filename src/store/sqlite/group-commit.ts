import type { Db } from './database.js';

interface Pending<T> {
  op: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A write that failed after it had written part of itself: nothing of the batch it was in may
 * stand, so the whole transaction rolls back and every write in it fails.
 */
export class HalfWritten extends Error {
  constructor(readonly failure: unknown) {
    super('a write failed part-way');
  }
}

/**
 * The most writes one transaction takes. A burst beyond it (review deadlines falling due together)
 * commits in several transactions, with a turn of the event loop between them, so requests are
 * not held behind one long transaction (2,000 evaluations held the event loop 445 ms in one).
 */
export const MAX_BATCH = 256;

/**
 * Group commit: the writes that arrive within one turn of the event loop share one
 * transaction, so a burst pays for one commit instead of one each. A write checks everything
 * that could refuse it before it writes anything, so a refused write (a conflict, a quota)
 * leaves nothing behind and the others stand, with no savepoint per write; a write that fails
 * half-way (HalfWritten) takes the batch down with it. A write's promise settles only after the
 * commit that holds it, so an answer never runs ahead of the disk. `committed` hears of each write
 * that stood, `ended` of each transaction's end (true: committed; false: rolled back).
 */
export function groupCommit<T>(
  db: Db,
  apply: (op: T) => void,
  hooks: { committed?: (op: T) => void; ended?: (committed: boolean) => void } = {},
): (op: T) => Promise<void> {
  const { committed = () => {}, ended = () => {} } = hooks;
  const all = db.transaction((ops: T[]) =>
    ops.map((op) => {
      try {
        apply(op);
        return undefined;
      } catch (e) {
        if (e instanceof HalfWritten) throw e.failure;
        return e ?? new Error('write failed');
      }
    }),
  );
  let queue: Pending<T>[] = [];

  const flush = () => {
    const batch = queue.length > MAX_BATCH ? queue.splice(0, MAX_BATCH) : queue;
    if (batch === queue) queue = [];
    else setImmediate(flush); // the rest, after whatever else waits on the event loop
    let outcomes: unknown[];
    try {
      outcomes = all.immediate(batch.map((p) => p.op));
    } catch (e) {
      ended(false);
      for (const p of batch) p.reject(e);
      return;
    }
    ended(true);
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
