/**
 * The hub's settings from flags, the environment and a config file: one rule (settle.ts) for every
 * setting of the table (settings.ts), then the checks across settings, the core's and each kind's.
 */
import { dirname, resolve } from 'node:path';
import { limitSettingKey } from '../identity/quota-rule.js';
import { IDENTITY_QUOTA_RULES } from '../identity/quota-rules.js';
import { ConfigError, type Config, type DbConfig, type HttpLimits } from './config.js';
import { described, type Origin, type Setting, type SettledSetting } from './declared.js';
import { isLoopbackHost } from './loopback.js';
import {
  settingsTable,
  type KindSettingsSource,
  type SettingKey,
  type SettingValues,
  type SettingsTable,
} from './settings.js';
import { settle, sourcesFrom, type ServeFlags, type Sources } from './settle.js';

export type { Origin } from './declared.js';
export type { ServeFlags } from './settle.js';

/** Every setting of the table settled: the core's typed, the kinds' by key. */
type Settled = { [K in SettingKey]: SettledSetting<SettingValues[K]> } & Readonly<
  Record<string, SettledSetting<unknown>>
>;

const sourcesOf = (table: SettingsTable, flags: ServeFlags, env: NodeJS.ProcessEnv): Sources =>
  sourcesFrom(flags, env, table.keys);

function settleAll(table: SettingsTable, sources: Sources): Settled {
  return Object.fromEntries(table.keys.map((key) => [key, settle(table.settings[key]!, sources)])) as Settled;
}

function httpLimitsFrom(s: Pick<Settled, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): HttpLimits {
  const headers = s.headersTimeoutMs.value!;
  const request = s.requestTimeoutMs.value!;
  // The headers are part of the request: node refuses a headers limit above the request's.
  if (headers > request)
    throw new ConfigError(`${described(s.headersTimeoutMs)} must not be more than ${described(s.requestTimeoutMs)}`);
  return { headersTimeoutMs: headers, requestTimeoutMs: request, keepAliveTimeoutMs: s.keepAliveTimeoutMs.value! };
}

/** Each rule's limit from its setting (limit-settings.ts): the hub's own rules and each kind's. */
function limitsFrom(table: SettingsTable, s: Settled): Record<string, number> {
  const rules = [IDENTITY_QUOTA_RULES, ...table.kinds.map((kind) => kind.quotaRules ?? {})].flatMap((r) =>
    Object.keys(r),
  );
  return Object.fromEntries(rules.map((rule) => [rule, s[limitSettingKey(rule)]!.value as number]));
}

/** Each kind's settings as its module takes them (KindSettingsSource.settingsFrom), by kind name; its checks across them run here. */
function kindsFrom(table: SettingsTable, s: Settled): Record<string, unknown> {
  const kinds: Record<string, unknown> = {};
  for (const kind of table.kinds) {
    if (!kind.settings) continue;
    const own = Object.fromEntries(Object.keys(kind.settings).map((key) => [key, s[key]!]));
    kinds[kind.name] = kind.settingsFrom
      ? kind.settingsFrom(own)
      : Object.fromEntries(Object.entries(own).map(([key, settled]) => [key, settled.value]));
  }
  return kinds;
}

function configFrom(table: SettingsTable, s: Settled): Config {
  const host = s.host.value!;
  const db = s.db.value!;
  const publicUrl = s.publicUrl.value;
  if (!isLoopbackHost(host) && !publicUrl) {
    throw new ConfigError(
      `binding to ${host} (not loopback) needs --public-url (or MUSTER_PUBLIC_URL), the URL clients use to reach this hub`,
    );
  }
  const adminToken = s.adminToken.value;
  return {
    host,
    port: s.port.value!,
    ...(s.grpcPort.value === undefined ? {} : { grpcPort: s.grpcPort.value }),
    db,
    ...(publicUrl ? { publicUrl } : {}),
    registration: s.registration.value!,
    ...(adminToken ? { adminToken, adminTokenFrom: s.adminToken.origin.name } : {}),
    adminTokenFile: resolve(db.kind === 'sqlite' ? dirname(db.file) : '.muster', 'admin-token'),
    rateLimits: s.rateLimits.value!,
    limits: limitsFrom(table, s),
    trustProxy: s.trustProxy.value!,
    allowPrivateTargets: s.allowPrivateTargets.value!,
    deliveryRetries: s.deliveryRetries.value!,
    streams: {
      heartbeatMs: s.sseHeartbeatMs.value!,
      drainTimeoutMs: s.sseDrainTimeoutMs.value!,
      maxPerCaller: s.maxStreamsPerCaller.value!,
    },
    mcpSessions: { maxSessions: s.mcpMaxSessions.value!, idleMs: s.mcpSessionIdleS.value! * 1000 },
    http: httpLimitsFrom(s),
    keyGraceDays: s.keyGraceDays.value!,
    kinds: kindsFrom(table, s),
    logLevel: s.logLevel.value!,
    metrics: s.metrics.value!,
  };
}

/** One setting as `muster config` shows it: its value (a secret only as set or not) and where it came from. */
export interface Explained {
  key: string;
  value: string | null;
  origin: Origin;
}

/** The hub's settings table, and how settings are read with it: what `serve`, `migrate` and `muster config` use. */
export interface HubSettings extends SettingsTable {
  /** The hub's settings from flags, the environment and the config file (--config or MUSTER_CONFIG); a bad one is a ConfigError. */
  resolveConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): Config;
  /** Every setting's effective value and origin, after the same checks `serve` makes. */
  explainConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): Explained[];
  /** Only the database, for `muster migrate`: the same sources and rule as serve. */
  resolveDb(flags: ServeFlags, env: NodeJS.ProcessEnv): DbConfig;
}

/** The table of the core's settings and these kinds' (the composition root's list), and its readers. */
export function hubSettings(kinds: readonly KindSettingsSource[]): HubSettings {
  const table = settingsTable(kinds);
  return {
    ...table,
    resolveConfig: (flags, env) => configFrom(table, settleAll(table, sourcesOf(table, flags, env))),
    explainConfig(flags, env) {
      const settled = settleAll(table, sourcesOf(table, flags, env));
      configFrom(table, settled); // the checks across settings
      return table.keys.map((key) => {
        const { text: _text, ...visible } = settled[key]!.origin; // the text as written would show a secret
        return { key, value: shown(table.settings[key]!, settled[key]!.value), origin: visible };
      });
    },
    resolveDb: (flags, env) => settle(table.settings.db, sourcesOf(table, flags, env)).value!,
  };
}

/** A value as `muster config` shows it: a secret only as set. */
function shown<T>(setting: Setting<T>, value: T | undefined): string | null {
  if (value === undefined) return null;
  if (setting.secret) return 'set (hidden)';
  return setting.show ? setting.show(value) : String(value);
}
