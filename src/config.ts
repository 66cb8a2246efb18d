import { dirname, resolve } from 'node:path';
import { isIP } from 'node:net';
import { parseRetries } from './delivery/outbox.js';
import { DEFAULT_REVIEW_SETTINGS, type ReviewSettings } from './hub/kinds/review/request.js';

export type DbConfig = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export interface Config {
  host: string;
  port: number;
  db: DbConfig;
  publicUrl?: URL;
  registration: 'open' | 'admin';
  /** The admin token from MUSTER_ADMIN_TOKEN; without it, identity/admin-token.ts settles one at start. */
  adminToken?: string;
  /** Where a generated admin token lives (or will): beside the SQLite file, or ./.muster/admin-token. */
  adminTokenFile: string;
  rateLimits: boolean;
  /** MUSTER_ALLOW_PRIVATE_TARGETS=1: http and private addresses for push and forwarding (development, tests). */
  allowPrivateTargets: boolean;
  /** Seconds before each delivery retry (MUSTER_DELIVERY_RETRIES). */
  deliveryRetries: number[];
  streams: StreamSettings;
  /** Review task rules (MUSTER_REVIEW_MIN_DEADLINE_S, MUSTER_REVIEW_MAX_DEADLINE_S, MUSTER_REVIEW_SOURCE_HOSTS). */
  review: ReviewSettings;
  /** pino level for the hub's log lines (--log-level, MUSTER_LOG_LEVEL; default info). */
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  /** Who may read GET /metrics: the admin token holder, or anyone (--metrics public). */
  metrics: 'admin' | 'public';
}

export interface StreamSettings {
  /** A comment line this often keeps idle streams open through proxies (MUSTER_SSE_HEARTBEAT_MS). */
  heartbeatMs: number;
  /** A subscriber whose socket has not drained for this long is closed (MUSTER_SSE_DRAIN_TIMEOUT_MS). */
  drainTimeoutMs: number;
  /** Open streams one caller may hold on this process (MUSTER_MAX_STREAMS_PER_CALLER). */
  maxPerCaller: number;
}

export interface ServeFlags {
  host?: string;
  port?: string;
  db?: string;
  publicUrl?: string;
  registration?: string;
}

/** A start-up problem the operator can fix; printed as one line. */
export class ConfigError extends Error {}

const LOOPBACK_HOSTS = new Set(['::1', 'localhost', '[::1]']);
/** Loopback names and literals only: `127.x.evil.example` is a DNS name, not an address, and is not loopback. */
export const isLoopbackHost = (host: string): boolean => {
  const name = host.toLowerCase();
  return LOOPBACK_HOSTS.has(name) || (isIP(name) === 4 && name.startsWith('127.')) || name.endsWith('.localhost');
};

export function parseDb(value: string): DbConfig {
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) return { kind: 'postgres', url: value };
  if (value.startsWith('sqlite:')) return { kind: 'sqlite', file: resolve(value.slice('sqlite:'.length)) };
  throw new ConfigError(`--db must be sqlite:<file> or postgres://…, not '${value}'`);
}

/** Flags win over the environment, which wins over defaults. */
export function resolveConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): Config {
  const host = flags.host ?? env['MUSTER_HOST'] ?? '127.0.0.1';
  const portText = flags.port ?? env['MUSTER_PORT'] ?? '7420';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--port must be a number from 0 to 65535, not '${portText}'`);
  const db = parseDb(flags.db ?? env['MUSTER_DB'] ?? 'sqlite:./.muster/muster.db');
  const publicText = flags.publicUrl ?? env['MUSTER_PUBLIC_URL'];
  let publicUrl: URL | undefined;
  if (publicText) {
    try {
      publicUrl = new URL(publicText.endsWith('/') ? publicText : `${publicText}/`);
    } catch {
      throw new ConfigError(`--public-url must be an absolute URL such as https://hub.example.com/, not '${publicText}'`);
    }
  }
  if (!isLoopbackHost(host) && !publicUrl) {
    throw new ConfigError(`binding to ${host} (not loopback) needs --public-url, the URL clients use to reach this hub`);
  }
  const registration = flags.registration ?? env['MUSTER_REGISTRATION'] ?? 'open';
  if (registration !== 'open' && registration !== 'admin') throw new ConfigError(`--registration must be open or admin, not '${registration}'`);
  const given = env['MUSTER_ADMIN_TOKEN'];
  const admin = { adminTokenFile: resolve(db.kind === 'sqlite' ? dirname(db.file) : '.muster', 'admin-token'), ...(given ? { adminToken: given } : {}) };
  return {
    host,
    port,
    db,
    ...(publicUrl ? { publicUrl } : {}),
    registration,
    ...admin,
    rateLimits: env['MUSTER_RATE_LIMITS'] !== 'off',
    allowPrivateTargets: env['MUSTER_ALLOW_PRIVATE_TARGETS'] === '1',
    deliveryRetries: retriesFrom(env['MUSTER_DELIVERY_RETRIES']),
    streams: {
      heartbeatMs: positiveInt(env, 'MUSTER_SSE_HEARTBEAT_MS', 15_000),
      drainTimeoutMs: positiveInt(env, 'MUSTER_SSE_DRAIN_TIMEOUT_MS', 10_000),
      maxPerCaller: positiveInt(env, 'MUSTER_MAX_STREAMS_PER_CALLER', 100),
    },
    review: reviewSettings(env),
    logLevel: (env['MUSTER_LOG_LEVEL'] as Config['logLevel'] | undefined) ?? 'info',
    metrics: env['MUSTER_METRICS'] === 'public' ? 'public' : 'admin',
  };
}

/** Review rules from the environment; `muster review preview` reads them too. */
export function reviewSettings(env: NodeJS.ProcessEnv): ReviewSettings {
  const d = DEFAULT_REVIEW_SETTINGS;
  const minDeadlineS = positiveInt(env, 'MUSTER_REVIEW_MIN_DEADLINE_S', d.minDeadlineS);
  const maxDeadlineS = positiveInt(env, 'MUSTER_REVIEW_MAX_DEADLINE_S', d.maxDeadlineS);
  if (maxDeadlineS < minDeadlineS) throw new ConfigError('MUSTER_REVIEW_MAX_DEADLINE_S must not be less than MUSTER_REVIEW_MIN_DEADLINE_S');
  const hosts = env['MUSTER_REVIEW_SOURCE_HOSTS']?.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
  return { minDeadlineS, maxDeadlineS, sourceHosts: hosts?.length ? hosts : d.sourceHosts };
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name} must be a whole number of at least 1, not '${text}'`);
  return value;
}

function retriesFrom(value: string | undefined): number[] {
  try {
    return parseRetries(value);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}
