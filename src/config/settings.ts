/**
 * Every setting of the hub, in one table: its key (the config file's key), its flag (the key in
 * kebab-case) and environment variable (MUSTER_ and the key in capitals), what it accepts, its
 * default, whether it is a secret, and its help. `serve --help`, `muster config` and the checks
 * at start are all made from this table.
 */
import { DEFAULT_RETRIES } from '../delivery/outbox.js';
import { DEFAULT_GRACE_DAYS } from '../delivery/signing.js';
import { IDENTITY_QUOTA_RULES } from '../identity/quota-rules.js';
import { KIND_QUOTA_RULES, KIND_SETTINGS } from '../kinds/settings.js';
import { limitSettings } from './limit-settings.js';
import { LOG_LEVELS, type DbConfig } from './config.js';
import { dbFrom, describeDb } from './db.js';
import { absoluteUrl, onOrOff, oneOf, proxyTrust, seconds, wholeNumber, type ProxyTrust } from './values.js';

export interface Setting<T> {
  key: string;
  /** Undefined for a secret that must not show in `ps`: environment and file only. */
  flag?: string;
  /** The flag's value in its help: `<port>`, `<on|off>`. */
  arg?: string;
  env: string;
  /** What the operator may write, to finish "… must be": "open or admin". */
  allowed: string;
  /** The value, or undefined when `text` is not allowed. */
  parse(text: string): T | undefined;
  /** As the operator would write it; undefined when the setting is unset unless given. */
  fallback?: string;
  secret?: boolean;
  help: string;
  /** The value as `muster config` shows it (default: its text). */
  show?(value: T): string;
}

/** A setting as a table entry declares it (key, flag and variable are made from the key). */
export interface Declared<T> extends Omit<Setting<T>, 'key' | 'flag' | 'env'> {
  /** False for a secret: no flag. */
  flag?: false;
}

/** Every rate limit the hub counts, the hub's own and the kinds', each declared with its default beside its code. */
export const QUOTA_RULE_DEFAULTS = { ...IDENTITY_QUOTA_RULES, ...KIND_QUOTA_RULES };

const declared = {
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
  ...limitSettings(QUOTA_RULE_DEFAULTS),
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
    help: 'ms a client has to send a request\'s headers, from the connection\'s start or the request\'s first byte (then 408 and the connection is closed)',
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
    help: 'ms an idle keep-alive connection stays open after an answer (longer than a proxy\'s idle timeout, so the proxy closes first)',
  },
  keyGraceDays: {
    arg: '<days>',
    allowed: 'a whole number of days from 0 to 3650',
    parse: wholeNumber(0, 3_650),
    fallback: String(DEFAULT_GRACE_DAYS),
    help: 'days a replaced signing key stays in the JWKS after a rotation, so what it signed still verifies',
  },
  ...KIND_SETTINGS,
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

type Declarations = typeof declared;
export type SettingKey = keyof Declarations;
/** Each setting's value, typed by its parser. */
export type SettingValues = { [K in SettingKey]: Exclude<ReturnType<Declarations[K]['parse']>, undefined> };

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const envName = (key: string) => `MUSTER_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

export const SETTINGS = Object.fromEntries(
  Object.entries(declared).map(([key, d]: [string, Declared<unknown>]) => {
    const { flag, ...rest } = d;
    return [key, { ...rest, key, env: envName(key), ...(flag === false ? {} : { flag: `--${kebab(key)}` }) }];
  }),
) as { [K in SettingKey]: Setting<SettingValues[K]> };

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
