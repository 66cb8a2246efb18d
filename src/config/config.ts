import type { ProxyTrust } from './values.js';

export type DbConfig = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** The hub's settings once resolved (settings.ts lists each one; resolve.ts decides which source wins). */
export interface Config {
  host: string;
  port: number;
  /** The A2A gRPC binding's port; the binding is off when unset. */
  grpcPort?: number;
  db: DbConfig;
  publicUrl?: URL;
  registration: 'open' | 'admin';
  /** The admin token given by the operator; without it, identity/admin-token.ts settles one at start. */
  adminToken?: string;
  /** Where the given admin token came from, as the operator wrote it ("MUSTER_ADMIN_TOKEN", "adminToken in muster.yaml"). */
  adminTokenFrom?: string;
  /** Where a generated admin token lives (or will): beside the SQLite file, or ./.muster/admin-token. */
  adminTokenFile: string;
  rateLimits: boolean;
  /** Each rate limit by its rule's name (`direct.pair`: 30), from its limit… setting. */
  limits: Readonly<Record<string, number>>;
  /** Whom X-Forwarded-For is taken from (fastify's trustProxy): the client address of per-address limits. */
  trustProxy: ProxyTrust;
  /** http and private addresses for push and forwarding (development, tests). */
  allowPrivateTargets: boolean;
  /** Seconds before each delivery retry. */
  deliveryRetries: number[];
  streams: StreamSettings;
  /** /mcp sessions held on this node, and how long an idle one lives. */
  mcpSessions: { maxSessions: number; idleMs: number };
  http: HttpLimits;
  /** Days a replaced signing key stays published after a rotation. */
  keyGraceDays: number;
  /**
   * Each kind's settings by kind name, as its module makes them of its entries in the table
   * (KindModule.settings, settingsFrom): the hub hands each kind its own (KindDeps.settings).
   */
  kinds: Readonly<Record<string, unknown>>;
  /** pino level for the hub's log lines. */
  logLevel: (typeof LOG_LEVELS)[number];
  /** Who may read GET /metrics: the admin token holder, or anyone. */
  metrics: 'admin' | 'public';
}

export interface StreamSettings {
  /** A comment line this often keeps idle streams open through proxies. */
  heartbeatMs: number;
  /** A subscriber whose socket has not drained for this long is closed. */
  drainTimeoutMs: number;
  /** Open streams one caller may hold on this process. */
  maxPerCaller: number;
}

/** How long a client may take over a request, and keep an idle connection (node's http.Server timeouts). */
export interface HttpLimits {
  /** From a request's first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body. Answers, streams included, are not limited. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed this long after its last answer. */
  keepAliveTimeoutMs: number;
}

/** A start-up problem the operator can fix; printed as one line. */
export class ConfigError extends Error {}
