import type { Db } from './database.js';
import type { QuotaCharge, Receipt, ReceiptStore } from '../store.js';
import { quotaStatements } from './quota-charges.js';

/**
 * Idempotency receipts. Their keys are the callers' own (messageIds, Idempotency-Keys: random
 * UUIDs as a rule), so a table keyed by them took every insert on a random page, and each commit
 * rewrote one page per receipt (about 20 us of CPU per SendMessage). Rows are appended in time
 * order instead and found through an in-memory index of their keys, rebuilt at start; receipts
 * live a day (prune), so the index holds a day's keys, about 100 bytes each. Being in time order,
 * they are pruned from the oldest on, with no index on their time: an index B-tree costs a
 * SendMessage its insert and, with appends, three to five more pages in each commit's WAL.
 *
 * The index learns a key as its row is written, so a second write with the same key in the same
 * transaction is refused; `settle` keeps those keys when the transaction commits and forgets them
 * when it rolls back.
 */
export function receiptIndex(db: Db) {
  // scope -> key -> seq. Nested rather than one map of joined strings: a lookup builds no string,
  // and each entry holds the caller's own key string (about 100 bytes in all, against 180 joined).
  const seqOf = new Map<string, Map<string, number>>();
  const remember = (scope: string, key: string, seq: number) => {
    const keys = seqOf.get(scope);
    if (keys) keys.set(key, seq);
    else seqOf.set(scope, new Map([[key, seq]]));
  };
  const forget = (scope: string, key: string) => {
    const keys = seqOf.get(scope);
    if (keys?.delete(key) && keys.size === 0) seqOf.delete(scope);
  };
  let unsettled: Receipt[] = [];
  const insert = db.prepare(
    'INSERT INTO receipts (scope, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const bySeq = db.prepare<[number], { scope: string; key: string; fingerprint: string; result: string }>(
    'SELECT scope, key, fingerprint, result FROM receipts WHERE seq = ?',
  );
  const oldest = db
    .prepare<[number], [number, number]>('SELECT seq, created_at FROM receipts ORDER BY seq LIMIT +?')
    .raw();
  const expireThrough = db.prepare<[number], { scope: string; key: string }>(
    'DELETE FROM receipts WHERE seq <= ? RETURNING scope, key',
  );
  const indexRows = db.prepare<[], { seq: number; scope: string; key: string }>(
    'SELECT seq, scope, key FROM receipts ORDER BY seq',
  );
  for (const row of indexRows.iterate()) remember(row.scope, row.key, row.seq);

  return {
    exists: (scope: string, key: string): boolean => seqOf.get(scope)?.has(key) ?? false,

    write(r: Receipt, at: number): void {
      const seq = Number(insert.run(r.scope, r.key, r.fingerprint, JSON.stringify(r.result), at).lastInsertRowid);
      remember(r.scope, r.key, seq);
      unsettled.push(r);
    },

    /** After each transaction that may have written receipts: keep their keys, or forget them. */
    settle(committed: boolean): void {
      if (!committed) for (const r of unsettled) forget(r.scope, r.key);
      unsettled = [];
    },

    get(scope: string, key: string): Receipt | undefined {
      const seq = seqOf.get(scope)?.get(key);
      const row = seq === undefined ? undefined : bySeq.get(seq);
      // The row must be the one the index names: a check that costs nothing and catches an index out of step.
      if (!row || row.scope !== scope || row.key !== key) return undefined;
      return { scope, key, fingerprint: row.fingerprint, result: JSON.parse(row.result) };
    },

    /**
     * Forgets up to `limit` receipts written before `before`, the oldest first, stopping at the first
     * written since (one a clock step put out of order waits for the next prune); answers how many it forgot.
     */
    prune(before: number, limit: number): number {
      let through: number | undefined;
      for (const [seq, at] of oldest.all(limit)) {
        if (at >= before) break;
        through = seq;
      }
      if (through === undefined) return 0;
      const expired = expireThrough.all(through);
      for (const row of expired) forget(row.scope, row.key);
      return expired.length;
    },
  };
}

/**
 * Receipts and quota counters as the store's ReceiptStore: receipts are found through `index`,
 * the one that task writes keep (so a receipt is readable as soon as its write commits).
 */
export function receiptStore(db: Db, index: ReturnType<typeof receiptIndex>): ReceiptStore {
  const used = db.prepare('SELECT used FROM quota_counters WHERE key = ? AND window_start = ?').pluck();
  const charge = db.transaction(quotaStatements(db).charge);
  return {
    getReceipt: async (scope: string, key: string) => index.get(scope, key),
    quotaUsed: async (key: string, windowStart: number) => (used.get(key, windowStart) as number | undefined) ?? 0,
    chargeQuotas: async (charges: readonly QuotaCharge[]) => charge(charges),
  };
}
