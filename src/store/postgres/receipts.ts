/**
 * Receipts and quota charges, as parts of the statement of the write they belong to: a refused
 * write leaves no receipt and uses no quota because it is one statement. The receipt's primary key
 * (scope, key) refuses a second write with its key, whichever process writes.
 */
import { HOLD_WINDOW, type QuotaCharge, type QuotaGate, type Receipt, type ReceiptStore } from '../store.js';
import { Statement, type Db } from './database.js';

/**
 * Adds the receipt's insert and answers its CTE, which has one row or raises a unique violation
 * (StoreConflict 'receipt'). A write checks it before anything else (its other checks join it), so
 * a retry racing the first write with its key, through another process, is told 'receipt' (and
 * answered from it) rather than 'version' or 'entry-exists'. Two writes with one key queue on the
 * key: the second waits for the first to commit or roll back.
 */
export function writeReceipt(s: Statement, receipt: Receipt | undefined, at: number): string | undefined {
  if (!receipt) return undefined;
  s.with(
    'receipt',
    `INSERT INTO receipts (scope, key, fingerprint, result, created_at)
     VALUES (${s.param(receipt.scope, 'text')}, ${s.param(receipt.key, 'text')}, ${s.param(receipt.fingerprint, 'text')},
       ${s.param(JSON.stringify(receipt.result), 'text')}, ${s.param(at, 'int8')}) RETURNING key`,
  );
  return 'receipt';
}

/**
 * Adds the CTEs that count `charges` (once `anchor`, if named, has its row) and answers a CTE of
 * one row whose reading raises MU429 (QuotaExceeded) when a positive charge went over its limit,
 * and the whole statement rolls back. A write joins it before its row, or reads it in its main query.
 *
 * The counting is an upsert, so concurrent writers queue on the counter row and each adds to what
 * the last one committed: a window's count never passes its limit across processes. Charges of one
 * key are summed first (one statement may touch a row once), and rows are taken in key order, so
 * two writes charging the same keys lock them in the same order and cannot deadlock on them.
 */
export function chargeQuotas(
  s: Statement,
  charges: readonly QuotaCharge[] | undefined,
  anchor?: string,
): string | undefined {
  if (!charges?.length) return undefined;
  const keys = s.param(
    charges.map((q) => q.key),
    'text[]',
  );
  const windows = s.param(
    charges.map((q) => q.windowStart),
    'int8[]',
  );
  const amounts = s.param(
    charges.map((q) => q.amount ?? 1),
    'int[]',
  );
  const limits = s.param(
    charges.map((q) => q.limit),
    'int[]',
  );
  s.with(
    'charges',
    `SELECT k, w, sum(a)::int AS amount, min(l) AS lim, bool_or(a > 0) AS takes, min(i) AS ord
     FROM unnest(${keys}, ${windows}, ${amounts}, ${limits}) WITH ORDINALITY AS c(k, w, a, l, i) GROUP BY k, w`,
  );
  // Holds are given back with negative amounts; a count never goes below zero.
  s.with(
    'counted',
    `INSERT INTO quota_counters (key, window_start, used)
     SELECT k, w, GREATEST(amount, 0) FROM charges${anchor ? `, ${anchor}` : ''} ORDER BY k, w
     ON CONFLICT (key, window_start) DO UPDATE
       SET used = GREATEST(quota_counters.used + (SELECT c.amount FROM charges c WHERE c.k = EXCLUDED.key AND c.w = EXCLUDED.window_start), 0)
     RETURNING key, window_start, used`,
  );
  // The refusal names the first charge over its limit in the write's own order, as SQLite does.
  s.with(
    'over_quota',
    `SELECT muster_refuse('MU429', first.key, first.lim::text) FROM (
       SELECT q.key, c.lim FROM counted q JOIN charges c ON c.k = q.key AND c.w = q.window_start
       WHERE c.takes AND q.used > c.lim ORDER BY c.ord LIMIT 1) first`,
  );
  s.with('quota_held', 'SELECT count(*) AS over FROM over_quota');
  return 'quota_held';
}

/**
 * A value that raises MU429 (QuotaExceeded) naming the first counter of `gate` that has used up
 * its limit, and is NULL while none has (see QuotaGate); undefined without a gate.
 */
export function gateTest(s: Statement, gate: QuotaGate | undefined): string | undefined {
  if (!gate?.length) return undefined;
  const keys = s.param(
    gate.map((q) => q.key),
    'text[]',
  );
  const windows = s.param(
    gate.map((q) => q.windowStart),
    'int8[]',
  );
  const limits = s.param(
    gate.map((q) => q.limit),
    'int[]',
  );
  return `(SELECT muster_refuse('MU429', g.k, g.l::text) FROM unnest(${keys}, ${windows}, ${limits}) WITH ORDINALITY AS g(k, w, l, i)
    JOIN quota_counters q ON q.key = g.k AND q.window_start = g.w WHERE q.used >= g.l ORDER BY g.i LIMIT 1)`;
}

/** Receipts pruned per statement, so a day of them (after an outage, say) is never one long transaction. */
const PRUNE_SLICE = 10_000;

export function receiptStatements(db: Db): ReceiptStore {
  return {
    async getReceipt(scope: string, key: string): Promise<Receipt | undefined> {
      const { rows } = await db.query<{ fingerprint: string; result: string }>(
        'SELECT fingerprint, result FROM receipts WHERE scope = $1 AND key = $2',
        [scope, key],
      );
      const row = rows[0];
      return row && { scope, key, fingerprint: row.fingerprint, result: JSON.parse(row.result) };
    },

    async chargeQuotas(charges: readonly QuotaCharge[]): Promise<void> {
      const s = new Statement();
      const over = chargeQuotas(s, charges);
      if (over) await db.query(s.text(`SELECT over FROM ${over}`), s.values);
    },

    async quotaUsed(key: string, windowStart: number): Promise<number> {
      const { rows } = await db.query<{ used: number }>(
        'SELECT used FROM quota_counters WHERE key = $1 AND window_start = $2',
        [key, windowStart],
      );
      return rows[0]?.used ?? 0;
    },
  };
}

/** Up to $2 receipts written before $1, found through the block ranges of `receipts_by_time` (migration 24). */
export const EXPIRED_RECEIPTS = 'SELECT ctid FROM receipts WHERE created_at < $1 LIMIT $2';

/** Forgets receipts written before `before`, and quota windows that ended before it (a day is the longest); holds are kept. */
export async function pruneReceipts(db: Db, before: number): Promise<void> {
  const slice = `DELETE FROM receipts WHERE ctid = ANY (ARRAY(${EXPIRED_RECEIPTS}))`;
  while ((await db.query(slice, [before, PRUNE_SLICE])).rowCount === PRUNE_SLICE);
  await db.query('DELETE FROM quota_counters WHERE window_start < $1 AND window_start <> $2', [
    before - 86_400_000,
    HOLD_WINDOW,
  ]);
}
