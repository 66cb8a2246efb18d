import { performance } from 'node:perf_hooks';
import type { Db } from './database.js';

interface Pending<T, R> {
  op: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** What one write in a batch came to: its result, or the error that refused it. */
type Outcome<R> = { result: R } | { error: unknown };

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
 * that stood, `ended` of each transaction's end (true: committed; false: rolled back), with the
 * number of writes it held and the seconds it took.
 */
export function groupCommit<T, R = void>(
  db: Db,
  apply: (op: T) => R,
  hooks: { committed?: (op: T) => void; ended?: (committed: boolean, writes: number, seconds: number) => void } = {},
): (op: T) => Promise<R> {
  const { committed = () => {}, ended = () => {} } = hooks;
  const all = db.transaction((ops: T[]) =>
    ops.map((op): Outcome<R> => {
      try {
        return { result: apply(op) };
      } catch (e) {
        if (e instanceof HalfWritten) throw e.failure;
        return { error: e ?? new Error('write failed') };
      }
    }),
  );
  let queue: Pending<T, R>[] = [];

  const flush = () => {
    const batch = queue.length > MAX_BATCH ? queue.splice(0, MAX_BATCH) : queue;
    if (batch === queue) queue = [];
    else setImmediate(flush); // the rest, after whatever else waits on the event loop
    let outcomes: Outcome<R>[];
    const started = performance.now();
    try {
      outcomes = all.immediate(batch.map((p) => p.op));
    } catch (e) {
      ended(false, batch.length, (performance.now() - started) / 1000);
      for (const p of batch) p.reject(e);
      return;
    }
    ended(true, batch.length, (performance.now() - started) / 1000);
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) return p.reject(outcome.error);
      committed(p.op);
      p.resolve(outcome.result);
    });
  };

  return (op) =>
    new Promise<R>((resolve, reject) => {
      if (queue.push({ op, resolve, reject }) === 1) setImmediate(flush);
    });
}
