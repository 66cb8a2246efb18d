import type { AddressInfo } from 'node:net';
import { ConfigError, describeDb, type Config } from './config/index.js';
import { buildApp } from './server/app.js';
import { createHub, type Hub } from './hub/hub.js';
import { Outbox } from './delivery/outbox.js';
import { LeasedWork } from './scheduler/leased-work.js';
import { Signer } from './delivery/signing.js';
import { pushBack } from './delivery/push-back.js';
import { settleAdminToken } from './identity/admin-token.js';
import { openStore } from './store/open.js';
import { kindMigrationInputs } from './hub/kinds.js';
import { DatabaseInUse } from './store/sqlite/ownership.js';
import { StoreUnavailable, type Delivery, type DueWork, type Store } from './store/store.js';
import { createLogger, type Logger } from './observability/logger.js';
import { HubMetrics } from './observability/metrics.js';
import { observedStore } from './observability/observed-store.js';
import { reportDelivery } from './observability/deliveries.js';
import { startGrpc, type RunningGrpc } from './doors/grpc/server.js';
import { OpenStreams } from './doors/http/open-streams.js';
import { Heartbeat } from './hub/heartbeat.js';
import { VERSION } from './version.js';
import { KIND_MODULES, type ServerKind } from './kinds/server.js';
import { KIND_CLIENTS } from './kinds/client.js';
import type { KindClient } from './kinds/kind-client.js';

export interface RunningHub {
  /** The hub's base URL, ending in `/`. */
  url: string;
  port: number;
  /** The gRPC binding's port, when it is on. */
  grpcPort?: number;
  /** Where an operator finds the admin token, and its fingerprint (as /health shows it). */
  adminToken: { where: string; fingerprint: string };
  /** Stops taking requests, lets in-flight ones finish, then closes the store. */
  close(): Promise<void>;
}

/** What went wrong, in a few words: the system's code, or the message (of the cause, for a wrapped error). */
export const reason = (e: unknown): string => {
  const inner = e instanceof StoreUnavailable && e.cause !== undefined ? e.cause : e;
  return (inner as NodeJS.ErrnoException).code ?? (inner as Error).message;
};

/** The configured store; a database that is in use or cannot be reached is the operator's to fix. */
async function openConfiguredStore(
  config: Config,
  modules: readonly ServerKind[],
  logger: Logger,
  metrics: HubMetrics,
): Promise<Store> {
  try {
    const store = await openStore(
      config.db,
      kindMigrationInputs(modules),
      (line) => logger.warn(line),
      (seconds, writes) => metrics.commit(seconds, writes),
    );
    return observedStore(store, metrics);
  } catch (e) {
    if (e instanceof DatabaseInUse) throw new ConfigError(e.message);
    throw new ConfigError(`cannot open the database ${describeDb(config.db)}: ${reason(e)}`);
  }
}

/** Idempotency receipts are kept a day; quota windows only until they are over. */
const RECEIPT_TTL_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** How soon a node signs with a key rotated through another node. */
const KEY_REFRESH_MS = 3_000;

function startPruning(store: Pick<Store, 'prune'>, logger: Logger): NodeJS.Timeout {
  const prune = () =>
    store
      .prune(Date.now() - RECEIPT_TTL_MS)
      .catch((e: unknown) => logger.warn({ err: e }, 'pruning old receipts failed (tried again within the hour)'));
  void prune();
  return setInterval(prune, PRUNE_EVERY_MS).unref();
}

/** Starts the gRPC binding on config.grpcPort; a port it cannot take is the operator's to fix. */
async function startGrpcBinding(
  hub: Hub,
  config: Config,
  parts: { hubBase: () => string; streams: OpenStreams; logger: Logger },
  store: Store,
  signer: Signer,
): Promise<RunningGrpc> {
  let port = config.grpcPort!;
  try {
    const running = await startGrpc(hub, {
      host: config.host,
      port,
      ...parts,
      drainTimeoutMs: config.streams.drainTimeoutMs,
      bindings: () => ({ grpcPort: port }),
    });
    port = running.port;
    return running;
  } catch (e) {
    signer.close();
    await store.close();
    throw new ConfigError(`cannot listen for gRPC on ${config.host}:${config.grpcPort}: ${reason(e)}`);
  }
}

export interface StartOptions {
  /** Where the hub's lines go (default: a logger on stdout at config.logLevel). */
  logger?: Logger;
  /** The kinds the hub runs (default: src/kinds/server.ts KIND_MODULES); their settings are in `config`. */
  modules?: readonly ServerKind[];
  /** The kinds' client halves, whose MCP tools the hub's /mcp serves (default: src/kinds/client.ts KIND_CLIENTS). */
  clients?: readonly KindClient[];
}

export async function startHub(config: Config, options: StartOptions = {}): Promise<RunningHub> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const modules = options.modules ?? KIND_MODULES;
  const metrics = new HubMetrics();
  const store = await openConfiguredStore(config, modules, logger, metrics);
  const admin = await settleAdminToken(config, store).catch(async (e: unknown) => {
    await store.close();
    throw e;
  });
  const policy = { allowPrivate: config.allowPrivateTargets };
  // Other nodes may rotate the keys: a shared store is read again every few seconds (and for each JWKS).
  const signer = await Signer.open(store, {
    graceMs: config.keyGraceDays * DAY_MS,
    ...(store.exclusive ? {} : { refreshMs: KEY_REFRESH_MS }),
  }).catch(async (e: unknown) => {
    await store.close();
    throw e;
  });
  // The outbox tells the hub what a forwarded task's endpoint answered; the hub pokes the outbox.
  let hub: Hub | undefined;
  const onAttempt = (delivery: Delivery) => reportDelivery(logger, metrics, delivery);
  const conversationOf = async (delivery: Delivery) => hub?.forwards.conversationOf(delivery);
  const headersFor = async (delivery: Delivery) => (hub ? hub.push.credentials(delivery) : {});
  const outbox = new Outbox(store, signer, {
    retries: config.deliveryRetries,
    policy,
    onAttempt,
    conversationOf,
    headersFor,
    onError: (e) => logger.error({ err: e }, 'a delivery attempt failed (retried when its lease ends)'),
    onLag: (ms) => metrics.schedulerLag('outbox', ms),
  });
  metrics.backlogFrom(() => outbox.backlog());
  hub = createHub(store, {
    modules,
    adminTokenHash: admin.hash,
    registration: config.registration,
    rateLimits: config.rateLimits,
    limits: config.limits,
    targets: policy,
    deliveriesQueued: () => outbox.poke(),
    pushBack: pushBack(signer, () => hubUrl),
    kinds: config.kinds,
  });
  // Deadlines: every process runs one; the lease and the task's compare-and-set make each run once.
  const deadlines = new LeasedWork<DueWork>({
    name: 'deadlines',
    claim: (owner, now, until, limit) => store.claimDue(owner, now, until, limit),
    key: (work) => work.taskId,
    run: async (work, owner) => {
      await hub!.tasks.runDue(work, owner);
      logger.info({ taskId: work.taskId, lateMs: Date.now() - work.dueAt }, 'deadline run');
    },
    next: () => store.nextDue(),
    // 64 in flight: a burst commits in small steps with turns of the event loop between them
    // (10,000 reviews due at once: loop delay p50 about 15 ms, was 50-90 ms with 128); claimed
    // 256 at a time, so a burst pays for a quarter of the claims (each a transaction of its own).
    batch: 64,
    claimAhead: 4,
    pollMs: 250,
    leaseMs: 30_000,
    lag: { dueAt: (work) => work.dueAt, report: (ms) => metrics.schedulerLag('deadlines', ms) },
    onError: (e) => logger.error({ err: e }, 'scheduled work failed (retried when its lease ends)'),
  });
  // The gRPC binding listens first, so the cards served over HTTP can name its port.
  const openStreams = new OpenStreams(hub, config.streams.maxPerCaller, metrics, logger);
  let hubUrl = '';
  const grpc =
    config.grpcPort === undefined
      ? undefined
      : await startGrpcBinding(hub, config, { hubBase: () => hubUrl, streams: openStreams, logger }, store, signer);
  const app = buildApp(hub, {
    feeds: modules.flatMap((m) => (m.feed ? [m.feed] : [])),
    clients: options.clients ?? KIND_CLIENTS,
    grpcPort: grpc?.port,
    openStreams,
    streams: config.streams,
    mcpSessions: config.mcpSessions,
    signer,
    publicUrl: config.publicUrl,
    adminTokenFingerprint: admin.hash.slice(0, 16),
    logger,
    metrics,
    metricsAccess: config.metrics,
    trustProxy: config.trustProxy,
    httpLimits: config.http,
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await grpc?.close();
    signer.close();
    await store.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`port ${config.port} on ${config.host} is already in use`);
    if (code === 'EACCES') throw new ConfigError(`no permission to listen on ${config.host}:${config.port}`);
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${reason(e)}`);
  }
  const pruner = startPruning(store, logger);
  outbox.start();
  deadlines.start();
  const { port } = app.server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = config.publicUrl?.href ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/`;
  hubUrl = url;
  // This process as one of the hub's nodes (GET /api/status); an outage is said once, and its end.
  const heartbeat = new Heartbeat(
    store,
    { id: hub.status.nodeId, version: VERSION, startedAt: hub.status.startedAt },
    {
      failed: (e) =>
        logger.warn({ err: e }, 'the node heartbeat failed (tried again every 10 s; said again when it works)'),
      recovered: () => logger.info('the node heartbeat works again'),
    },
  );
  await heartbeat.start(url);
  return {
    url,
    port,
    ...(grpc ? { grpcPort: grpc.port } : {}),
    adminToken: { where: admin.where, fingerprint: admin.hash.slice(0, 16) },
    close: async () => {
      clearInterval(pruner);
      await Promise.all([app.close(), grpc?.close()]);
      await deadlines.stop();
      await outbox.stop();
      await heartbeat.stop();
      signer.close();
      await store.close();
    },
  };
}
