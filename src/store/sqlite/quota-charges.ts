import type { Db } from './database.js';
import { QuotaExceeded, type QuotaCharge } from '../store.js';

/** Counts quota uses (and gives holds back) inside the caller's transaction; over the limit throws, rolling the write back. */
export function quotaCharger(db: Db): (charges: readonly QuotaCharge[] | undefined) => void {
  const charge = db.prepare(
    `INSERT INTO quota_counters (key, window_start, used) VALUES (@key, @window, MAX(@amount, 0))
     ON CONFLICT (key, window_start) DO UPDATE SET used = MAX(used + @amount, 0) RETURNING used`,
  );
  return (charges) => {
    for (const q of charges ?? []) {
      const amount = q.amount ?? 1;
      const { used } = charge.get({ key: q.key, window: q.windowStart, amount }) as { used: number };
      if (amount > 0 && used > q.limit) throw new QuotaExceeded(q.key, q.limit);
    }
  };
}
