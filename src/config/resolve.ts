import { dirname, resolve } from 'node:path';
import type { ReviewSettings } from '../kinds/review/request.js';
import { ConfigError, type Config, type HttpLimits } from './config.js';
import { readConfigFile, type FileSettings } from './file.js';
import { isLoopbackHost } from './loopback.js';
import { limitSettingKey } from '../identity/quota-rule.js';
import { QUOTA_RULE_DEFAULTS, SETTING_KEYS, SETTINGS, type Setting, type SettingKey, type SettingValues } from './settings.js';

/** The flags of `serve` and `config` as commander hands them over: each setting's key, and the file. */
export type ServeFlags = Partial<Record<SettingKey, string>> & { config?: string };

/** Where a setting's value came from, and its name there as the operator wrote it. */
export interface Origin {
  from: 'flag' | 'env' | 'file' | 'default';
  /** The config file, when the value came from it. */
  file?: string;
  /** "--port", "MUSTER_PORT", "port in muster.yaml"; for a default, the flag (or variable). */
  name: string;
  /** The value as written: kept out of `muster config`, since it may be a secret. */
  text?: string;
}

interface Sources {
  flags: ServeFlags;
  env: NodeJS.ProcessEnv;
  file?: { path: string; settings: FileSettings };
}

interface SettledOne<K extends SettingKey> {
  value: SettingValues[K] | undefined;
  origin: Origin;
}
type Settled = { [K in SettingKey]: SettledOne<K> };

function sourcesFrom(flags: ServeFlags, env: NodeJS.ProcessEnv): Sources {
  const path = flags.config ?? (env['MUSTER_CONFIG'] || undefined);
  return { flags, env, ...(path ? { file: { path, settings: readConfigFile(path) } } : {}) };
}

/** The one rule: a flag wins over the environment, which wins over the file, which wins over the default. */
function pick(key: SettingKey, { flags, env, file }: Sources): Origin {
  const setting = SETTINGS[key];
  const flag = setting.flag ? flags[key] : undefined;
  if (flag !== undefined) return { from: 'flag', name: setting.flag!, text: flag };
  const variable = env[setting.env];
  if (variable !== undefined && variable !== '') return { from: 'env', name: setting.env, text: variable };
  const written = file?.settings[key];
  if (written !== undefined) return { from: 'file', file: file!.path, name: `${key} in ${file!.path}`, text: written };
  return { from: 'default', name: setting.flag ?? setting.env, ...(setting.fallback !== undefined ? { text: setting.fallback } : {}) };
}

function settle<K extends SettingKey>(key: K, sources: Sources): SettledOne<K> {
  const origin = pick(key, sources);
  if (origin.text === undefined) return { value: undefined, origin };
  const setting = SETTINGS[key];
  const value = setting.parse(origin.text);
  if (value === undefined) {
    const given = setting.secret ? '' : `, not '${origin.text}'`; // a secret is never echoed
    throw new ConfigError(`${origin.name} must be ${setting.allowed}${given}`);
  }
  return { value, origin };
}

function settleAll(sources: Sources): Settled {
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, settle(key, sources)])) as Settled;
}

/** "MUSTER_REVIEW_MIN_DEADLINE_S (60)", or "the default --review-max-deadline-s (604800)". */
const described = ({ origin }: { origin: Origin }) => `${origin.from === 'default' ? 'the default ' : ''}${origin.name} (${origin.text})`;

function reviewFrom(s: Pick<Settled, 'reviewMinDeadlineS' | 'reviewMaxDeadlineS' | 'reviewSourceHosts'>): ReviewSettings {
  const min = s.reviewMinDeadlineS.value!;
  const max = s.reviewMaxDeadlineS.value!;
  if (max < min) throw new ConfigError(`${described(s.reviewMaxDeadlineS)} must not be less than ${described(s.reviewMinDeadlineS)}`);
  return { minDeadlineS: min, maxDeadlineS: max, sourceHosts: s.reviewSourceHosts.value! };
}

function httpLimitsFrom(s: Pick<Settled, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): HttpLimits {
  const headers = s.headersTimeoutMs.value!;
  const request = s.requestTimeoutMs.value!;
  // The headers are part of the request: node refuses a headers limit above the request's.
  if (headers > request) throw new ConfigError(`${described(s.headersTimeoutMs)} must not be more than ${described(s.requestTimeoutMs)}`);
  return { headersTimeoutMs: headers, requestTimeoutMs: request, keepAliveTimeoutMs: s.keepAliveTimeoutMs.value! };
}

/** Each rule's limit from its setting (limit-settings.ts). */
const limitsFrom = (s: Settled): Record<string, number> =>
  Object.fromEntries(Object.keys(QUOTA_RULE_DEFAULTS).map((rule) => [rule, s[limitSettingKey(rule as keyof typeof QUOTA_RULE_DEFAULTS)].value!]));

function configFrom(s: Settled): Config {
  const host = s.host.value!;
  const db = s.db.value!;
  const publicUrl = s.publicUrl.value;
  if (!isLoopbackHost(host) && !publicUrl) {
    throw new ConfigError(`binding to ${host} (not loopback) needs --public-url (or MUSTER_PUBLIC_URL), the URL clients use to reach this hub`);
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
    limits: limitsFrom(s),
    trustProxy: s.trustProxy.value!,
    allowPrivateTargets: s.allowPrivateTargets.value!,
    deliveryRetries: s.deliveryRetries.value!,
    streams: { heartbeatMs: s.sseHeartbeatMs.value!, drainTimeoutMs: s.sseDrainTimeoutMs.value!, maxPerCaller: s.maxStreamsPerCaller.value! },
    mcpSessions: { maxSessions: s.mcpMaxSessions.value!, idleMs: s.mcpSessionIdleS.value! * 1000 },
    http: httpLimitsFrom(s),
    keyGraceDays: s.keyGraceDays.value!,
    review: reviewFrom(s),
    intentWaitS: s.intentWaitS.value!,
    blockingWaitS: s.blockingWaitS.value!,
    logLevel: s.logLevel.value!,
    metrics: s.metrics.value!,
  };
}

/** The hub's settings from flags, the environment and the config file (--config or MUSTER_CONFIG); a bad one is a ConfigError. */
export function resolveConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): Config {
  return configFrom(settleAll(sourcesFrom(flags, env)));
}

/** One setting as `muster config` shows it: its value (a secret only as set or not) and where it came from. */
export interface Explained {
  key: SettingKey;
  value: string | null;
  origin: Origin;
}

/** Every setting's effective value and origin, after the same checks `serve` makes. */
export function explainConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): Explained[] {
  const settled = settleAll(sourcesFrom(flags, env));
  configFrom(settled); // the checks across settings
  return SETTING_KEYS.map((key) => {
    const { text: _text, ...visible } = settled[key].origin; // the text as written would show a secret
    return { key, value: shown(key, settled[key].value), origin: visible };
  });
}

/** A value as `muster config` shows it: a secret only as set. */
function shown<K extends SettingKey>(key: K, value: SettingValues[K] | undefined): string | null {
  const setting: Setting<SettingValues[K]> = SETTINGS[key];
  if (value === undefined) return null;
  if (setting.secret) return 'set (hidden)';
  return setting.show ? setting.show(value) : String(value);
}

/** The review rules from the environment (and MUSTER_CONFIG's file); `muster review preview` checks requests with them. */
export function reviewSettings(env: NodeJS.ProcessEnv): ReviewSettings {
  const sources = sourcesFrom({}, env);
  return reviewFrom({
    reviewMinDeadlineS: settle('reviewMinDeadlineS', sources),
    reviewMaxDeadlineS: settle('reviewMaxDeadlineS', sources),
    reviewSourceHosts: settle('reviewSourceHosts', sources),
  });
}

/** Only the database, for `muster migrate`: the same sources and rule as serve. */
export function resolveDb(flags: ServeFlags, env: NodeJS.ProcessEnv): Config['db'] {
  return settle('db', sourcesFrom(flags, env)).value!;
}
