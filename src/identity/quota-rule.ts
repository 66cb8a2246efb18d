/**
 * What a quota rule is, in a module that imports nothing: each kind's rules, and the hub's own,
 * are declared in small files beside their code, and the settings table (config/settings.ts)
 * makes one setting of each rule from the modules it is given.
 */

/**
 * Uses per fixed window (`windowMs`), or things held at once (`held`: open tasks), given back
 * with `release`. `limit` is the default; the setting made from the rule (`limitSettingKey`)
 * may change it.
 */
export type QuotaRule = {
  readonly limit: number;
  /** What the limit is, for people: "tasks a minute from one agent to another". */
  readonly what: string;
  /** Counted per source address: requests from loopback are not counted (config/loopback.ts). */
  readonly perAddress?: true;
} & ({ readonly windowMs: number } | { readonly held: true });

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

type Camel<S extends string> = S extends `${infer Head}.${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
/** The setting of a rule: `direct.pair` is `limitDirectPair` (MUSTER_LIMIT_DIRECT_PAIR, --limit-direct-pair). */
export type LimitSettingKey<R extends string> = `limit${Capitalize<Camel<R>>}`;

export const limitSettingKey = <R extends string>(rule: R): LimitSettingKey<R> =>
  `limit${rule
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}` as LimitSettingKey<R>;
