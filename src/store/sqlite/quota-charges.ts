import type { Db } from './database.js';
import { QuotaExceeded, type QuotaCharge } from '../store.js';

/** Counts quota uses inside the caller's transaction; over the limit throws, rolling the write back. */
export function quotaCharger(db: Db): (charges: readonly QuotaCharge[] | undefined) => void {
  const charge = db.prepare(
    `INSERT INTO quota_counters (key, window_start, used) VALUES (?, ?, 1)
     ON CONFLICT (key, window_start) DO UPDATE SET used = used + 1 RETURNING used`,
  );
  return (charges) => {
    for (const q of charges ?? []) {
      const { used } = charge.get(q.key, q.windowStart) as { used: number };
      if (used > q.limit) throw new QuotaExceeded(q.key, q.limit);
    }
  };
}
