import type { Db } from './database.js';
import { QuotaExceeded, type QuotaCharge, type QuotaGate } from '../store.js';

/**
 * Quota uses inside the caller's transaction, in two steps: `check` reads and refuses a charge
 * over its limit (writing nothing), `apply` counts the uses and gives holds back. `gate` refuses a
 * request whose gate is closed (a counter that has used up its limit; see QuotaGate).
 */
export function quotaStatements(db: Db) {
  const used = db.prepare('SELECT used FROM quota_counters WHERE key = ? AND window_start = ?').pluck();
  const count = db.prepare(
    `INSERT INTO quota_counters (key, window_start, used) VALUES (@key, @window, MAX(@amount, 0))
     ON CONFLICT (key, window_start) DO UPDATE SET used = MAX(used + @amount, 0)`,
  );
  const check = (charges: readonly QuotaCharge[] | undefined): void => {
    for (const q of charges ?? []) {
      const amount = q.amount ?? 1;
      if (amount > 0 && ((used.get(q.key, q.windowStart) as number | undefined) ?? 0) + amount > q.limit)
        throw new QuotaExceeded(q.key, q.limit);
    }
  };
  const apply = (charges: readonly QuotaCharge[] | undefined): void => {
    for (const q of charges ?? []) count.run({ key: q.key, window: q.windowStart, amount: q.amount ?? 1 });
  };
  const gate = (charges: QuotaGate | undefined): void => {
    for (const q of charges ?? [])
      if (((used.get(q.key, q.windowStart) as number | undefined) ?? 0) >= q.limit)
        throw new QuotaExceeded(q.key, q.limit);
  };
  return {
    check,
    apply,
    gate,
    charge: (charges: readonly QuotaCharge[] | undefined) => (check(charges), apply(charges)),
  };
}
