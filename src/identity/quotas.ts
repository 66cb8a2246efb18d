import { isLoopbackAddress } from '../config/loopback.js';
import { HubError } from '../errors/hub-error.js';
import { HOLD_WINDOW, type QuotaCharge, type QuotaExceeded } from '../store/store.js';
import { MINUTE, type QuotaRule } from './quota-rule.js';
import { isoTime } from '../wire/iso-time.js';

export { DAY, HOUR, MINUTE, type QuotaRule } from './quota-rule.js';

/** The rules with the limits set at start (by rule name; the limit… settings) in place of their declared defaults. */
export const withLimits = (
  rules: Readonly<Record<string, QuotaRule>>,
  limits: Readonly<Record<string, number>>,
): Record<string, QuotaRule> =>
  Object.fromEntries(
    Object.entries(rules).map(([name, rule]) => [
      name,
      limits[name] === undefined ? rule : { ...rule, limit: limits[name] },
    ]),
  );

/**
 * Quotas and rate limits as fixed windows counted in the store, so they hold across nodes.
 * A charge is applied in the same transaction as the write it pays for: a refused write
 * uses no quota.
 */
export class Quotas {
  constructor(
    private readonly rules: Readonly<Record<string, QuotaRule>>,
    private readonly enabled = true,
  ) {}

  /**
   * The charge for one use of `rule` by `subject` (e.g. "alice>bob", or the client's address for a
   * `perAddress` rule, which does not count loopback) at `now`.
   */
  charge(rule: string, subject: string, now: number): QuotaCharge[] {
    const r = this.rules[rule];
    if (!this.enabled || !r || (r.perAddress && isLoopbackAddress(subject))) return [];
    const windowStart = 'held' in r ? HOLD_WINDOW : Math.floor(now / r.windowMs) * r.windowMs;
    return [{ key: `${rule}|${subject}`, windowStart, limit: r.limit }];
  }

  /** Gives back one hold of a `held` rule (the open task closed). */
  release(rule: string, subject: string): QuotaCharge[] {
    const r = this.rules[rule];
    if (!this.enabled || !r || !('held' in r)) return [];
    return [{ key: `${rule}|${subject}`, windowStart: HOLD_WINDOW, limit: r.limit, amount: -1 }];
  }

  /** Turns the store's refusal into the hub's RATE_LIMITED error, saying when to retry. */
  refusal(e: QuotaExceeded, now: number): HubError {
    const rule = e.key.split('|')[0] ?? '';
    const r = this.rules[rule];
    if (r && 'held' in r) {
      return new HubError('RATE_LIMITED', `Over the limit of ${r.limit} ${r.what}`, {
        hint: 'Wait until one of them closes',
        meta: { quota: rule },
      });
    }
    const retryAt = r ? Math.floor(now / r.windowMs) * r.windowMs + r.windowMs : now + MINUTE;
    const what = r ? `${r.limit} ${r.what}` : 'this quota';
    return new HubError('RATE_LIMITED', `Over the limit of ${what}`, {
      hint: `Retry after ${isoTime(retryAt)}`,
      meta: { quota: rule, retryAfterSeconds: String(Math.max(1, Math.ceil((retryAt - now) / 1000))) },
    });
  }
}
