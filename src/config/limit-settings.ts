/**
 * One setting for each rate limit: the limit of rule `direct.pair` is `limitDirectPair`
 * (MUSTER_LIMIT_DIRECT_PAIR, --limit-direct-pair), whose default is the rule's declared limit.
 * The settings table (settings.ts) spreads these, so every limit shows in `serve --help` and
 * `muster config`, and the hub takes each limit from the resolved settings.
 */
import { limitSettingKey, type LimitSettingKey, type QuotaRule } from '../identity/quota-rule.js';
import type { Declared } from './declared.js';
import { wholeNumber } from './values.js';

export type LimitSettings<R> = { [K in keyof R & string as LimitSettingKey<K>]: Declared<number> };

export function limitSettings<const R extends Readonly<Record<string, QuotaRule>>>(rules: R): LimitSettings<R> {
  const entries = Object.entries(rules).map(([name, rule]): [string, Declared<number>] => [
    limitSettingKey(name),
    {
      arg: '<count>',
      allowed: 'a whole number of at least 1',
      parse: wholeNumber(1),
      fallback: String(rule.limit),
      help: `the most ${rule.what}${rule.perAddress ? ' (loopback not counted)' : ''}`,
    },
  ]);
  return Object.fromEntries(entries) as LimitSettings<R>;
}
