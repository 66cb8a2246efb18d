/**
 * Every setting of the hub, in one table: its key (the config file's key), its flag (the key in
 * kebab-case) and environment variable (MUSTER_ and the key in capitals), what it accepts, its
 * default, whether it is a secret, and its help. `serve --help`, `muster config` and the checks
 * at start are all made from this table: the core's settings below, and each kind's as its module
 * declares them (its settings, and a limit setting for each of its quota rules), handed in by the
 * composition root (settingsTable); nothing here names a kind.
 */
import { DEFAULT_GRACE_DAYS, DEFAULT_RETRIES } from '../delivery/defaults.js';
import { IDENTITY_QUOTA_RULES } from '../identity/quota-rules.js';
import type { QuotaRule } from '../identity/quota-rule.js';
import { limitSettings } from './limit-settings.js';
import { LOG_LEVELS, type DbConfig } from './config.js';
import { dbFrom, dbRefusal, describeDb } from './db.js';
import {
  settingOf,
  type Declarations,
  type Declared,
  type Setting,
  type SettledSetting,
  type ValueOf,
} from './declared.js';
import { absoluteUrl, onOrOff, oneOf, proxyTrust, seconds, wholeNumber, type ProxyTrust } from './values.js';

export type { Declared, Setting } from './declared.js';

/** What the table takes of a kind (its KindModule): its settings, its quota rules, and what it makes of its settings. */
export interface KindSettingsSource {
  readonly name: string;
  readonly settings?: Declarations;
  readonly quotaRules?: Readonly<Record<string, QuotaRule>>;
  /** What the kind is handed of its settings, from each one settled; a check across them throws a ConfigError. Without it: the values by key. */
  settingsFrom?(settled: Readonly<Record<string, SettledSetting<any>>>): unknown;
}

/** The core's settings before the kinds' limits: where the hub listens, its database, who registers, the rate limits. */
const serving = {
  host: {
    arg: '<host>',
    allowed: 'an address or host name to bind, such as 127.0.0.1 or 0.0.0.0',
    parse: (t: string) => (/^\S+$/.test(t) ? t : undefined),
    fallback: '127.0.0.1',
    help: 'address to bind; off loopback it needs publicUrl',
  },
  port: {
    arg: '<port>',
    allowed: 'a number from 0 to 65535',
    parse: wholeNumber(0, 65_535),
    fallback: '7420',
    help: 'port to listen on (0: any free port)',
  },
  db: {
    arg: '<url>',
    allowed: 'sqlite:<file> or postgres://…',
    parse: dbFrom,
    refusal: dbRefusal,
    fallback: 'sqlite:./.muster/muster.db',
    help: 'the database',
    show: (db: DbConfig) => (db.kind === 'sqlite' ? `sqlite:${db.file}` : describeDb(db)),
  },
  publicUrl: {
    arg: '<url>',
    allowed: 'an absolute http(s) URL such as https://hub.example.com/',
    parse: absoluteUrl,
    help: 'the URL clients reach the hub at; required off loopback',
    show: (url: URL) => url.href,
  },
  grpcPort: {
    arg: '<port>',
    allowed: 'a number from 0 to 65535',
    parse: wholeNumber(0, 65_535),
    help: 'port of the A2A gRPC binding, on the same host (0: any free port); off unless set',
  },
  registration: {
    arg: '<open|admin>',
    allowed: 'open or admin',
    parse: oneOf(['open', 'admin'] as const),
    fallback: 'open',
    help: 'who may register agents: anyone, or the admin token holder',
  },
  adminToken: {
    flag: false,
    allowed: 'a non-empty token',
    parse: (t: string) => (t.trim() ? t.trim() : undefined),
    secret: true,
    help: 'the admin token (environment or file only); without it one is generated and kept in a file',
  },
  rateLimits: {
    arg: '<on|off>',
    allowed: 'on or off',
    parse: onOrOff,
    fallback: 'on',
    help: 'rate limits and quotas; off counts none (the limit… settings set each one)',
    show: (on: boolean) => (on ? 'on' : 'off'),
  },
  ...limitSettings(IDENTITY_QUOTA_RULES),
} satisfies Record<string, Declared<any>>; // any: each entry's own value type is checked against its parse

/** The core's settings between the kinds' limits and the kinds' own settings. */
const running = {
  trustProxy: {
    arg: '<off|on|address,…>',
    allowed: 'off, on, or a comma list of proxy addresses and CIDR ranges, such as 10.0.0.5,172.16.0.0/12',
    parse: proxyTrust,
    fallback: 'off',
    help: 'which peers may name the client in X-Forwarded-For (the address per-address limits count); off: the peer is the client',
    show: (trust: ProxyTrust) => (trust === true ? 'on' : trust === false ? 'off' : trust.join(',')),
  },
  allowPrivateTargets: {
    arg: '<on|off>',
    allowed: 'on or off',
    parse: onOrOff,
    fallback: 'off',
    help: 'let push and forwarding reach http and private addresses (development, tests)',
    show: (on: boolean) => (on ? 'on' : 'off'),
  },
  deliveryRetries: {
    arg: '<seconds,…>',
    allowed: 'a comma list of seconds, such as 60,300,1800',
    parse: seconds,
    fallback: DEFAULT_RETRIES.join(','),
    help: 'seconds before each delivery retry',
    show: (s: number[]) => s.join(','),
  },
  sseHeartbeatMs: {
    arg: '<ms>',
    allowed: 'a whole number of at least 1',
    parse: wholeNumber(1),
    fallback: '15000',
    help: 'ms between keep-alive lines on idle streams',
  },
  sseDrainTimeoutMs: {
    arg: '<ms>',
    allowed: 'a whole number of at least 1',
    parse: wholeNumber(1),
    fallback: '10000',
    help: 'ms a stream subscriber may stay undrained before it is closed',
  },
  maxStreamsPerCaller: {
    arg: '<count>',
    allowed: 'a whole number of at least 1',
    parse: wholeNumber(1),
    fallback: '100',
    help: 'open streams one caller may hold on this node',
  },
  mcpMaxSessions: {
    arg: '<count>',
    allowed: 'a whole number of at least 1',
    parse: wholeNumber(1),
    fallback: '1000',
    help: 'MCP sessions (/mcp, Streamable HTTP) this node holds at once; past it a new session is refused (429)',
  },
  mcpSessionIdleS: {
    arg: '<seconds>',
    allowed: 'a whole number of seconds from 1 to 86400',
    parse: wholeNumber(1, 86_400),
    fallback: '1800',
    help: 'seconds an MCP session with no request and no open stream lives; then the client initializes again',
  },
  headersTimeoutMs: {
    arg: '<ms>',
    allowed: 'a whole number of ms from 1 to 3600000, not more than requestTimeoutMs',
    parse: wholeNumber(1, 3_600_000),
    fallback: '10000',
    help: "ms a client has to send a request's headers, from the connection's start or the request's first byte (then 408 and the connection is closed)",
  },
  requestTimeoutMs: {
    arg: '<ms>',
    allowed: 'a whole number of ms from 1 to 3600000',
    parse: wholeNumber(1, 3_600_000),
    fallback: '30000',
    help: 'ms a client has to send a whole request, body included (then 408 and the connection is closed); answers and streams are not limited',
  },
  keepAliveTimeoutMs: {
    arg: '<ms>',
    allowed: 'a whole number of ms from 1 to 3600000',
    parse: wholeNumber(1, 3_600_000),
    fallback: '65000',
    help: "ms an idle keep-alive connection stays open after an answer (longer than a proxy's idle timeout, so the proxy closes first)",
  },
  keyGraceDays: {
    arg: '<days>',
    allowed: 'a whole number of days from 0 to 3650',
    parse: wholeNumber(0, 3_650),
    fallback: String(DEFAULT_GRACE_DAYS),
    help: 'days a replaced signing key stays in the JWKS after a rotation, so what it signed still verifies',
  },
} satisfies Record<string, Declared<any>>;

/** The core's settings after the kinds' own. */
const reporting = {
  logLevel: {
    arg: '<level>',
    allowed: `one of ${LOG_LEVELS.join(', ')}`,
    parse: oneOf(LOG_LEVELS),
    fallback: 'info',
    help: 'the lowest level of log line written',
  },
  metrics: {
    arg: '<admin|public>',
    allowed: 'admin or public',
    parse: oneOf(['admin', 'public'] as const),
    fallback: 'admin',
    help: 'who may read GET /metrics: the admin token holder, or anyone',
  },
} satisfies Record<string, Declared<any>>; // any: each entry's own value type is checked against its parse

type Core = typeof serving & typeof running & typeof reporting;
export type SettingKey = keyof Core;
/** Each core setting's value, typed by its parser. */
export type SettingValues = { [K in SettingKey]: ValueOf<Core[K]> };
/** The core's settings, typed; a kind's settings are typed in its own wing. */
export type CoreSettings = { [K in SettingKey]: Setting<SettingValues[K]> };

/** The hub's settings table: every setting by key, in the order `serve --help` and `muster config` list them. */
export interface SettingsTable {
  readonly settings: CoreSettings & Readonly<Record<string, Setting<unknown>>>;
  readonly keys: readonly string[];
  /** The kinds the table was made with. */
  readonly kinds: readonly KindSettingsSource[];
}

/**
 * The table of the core's settings and the kinds': each kind's quota rules' limit settings after
 * the hub's own, each kind's settings before the log settings, in the order of `kinds`. A key
 * declared twice is a bug, refused here.
 */
export function settingsTable(kinds: readonly KindSettingsSource[]): SettingsTable {
  const declared: Record<string, Declared<any>> = {};
  const add = (entries: Declarations, by: string) => {
    for (const [key, entry] of Object.entries(entries)) {
      if (Object.hasOwn(declared, key)) throw new Error(`setting ${key} is declared twice (again by ${by})`);
      declared[key] = entry;
    }
  };
  add(serving, 'the hub');
  for (const kind of kinds) add(limitSettings(kind.quotaRules ?? {}), `kind ${kind.name}`);
  add(running, 'the hub');
  for (const kind of kinds) add(kind.settings ?? {}, `kind ${kind.name}`);
  add(reporting, 'the hub');
  const settings = Object.fromEntries(Object.entries(declared).map(([key, d]) => [key, settingOf(key, d)]));
  return { settings: settings as SettingsTable['settings'], keys: Object.keys(settings), kinds };
}
