import type { AddressInfo } from 'node:net';
import { ConfigError, type Config } from './config.js';
import { buildApp } from './doors/http/app.js';
import { createHub, type Hub } from './hub/hub.js';
import { FORWARD_CHANNEL } from './delivery/forward.js';
import { Outbox } from './delivery/outbox.js';
import { LeasedWork } from './scheduler/leased-work.js';
import { Signer, type StoredKey } from './delivery/signing.js';
import { fingerprint } from './identity/tokens.js';
import { openSqliteStore } from './store/sqlite/sqlite-store.js';
import type { Delivery, DueWork, Store } from './store/store.js';

export interface RunningHub {
  /** The hub's base URL, ending in `/`. */
  url: string;
  port: number;
  /** Stops taking requests, lets in-flight ones finish, then closes the store. */
  close(): Promise<void>;
}

const reason = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

function openStore(config: Config): Store {
  if (config.db.kind === 'postgres') throw new ConfigError('the PostgreSQL store is not available in this version yet');
  try {
    return openSqliteStore(config.db.file);
  } catch (e) {
    throw new ConfigError(`cannot open the database ${config.db.file}: ${reason(e)}`);
  }
}

/** Idempotency receipts are kept a day; quota windows only until they are over. */
const RECEIPT_TTL_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

function startPruning(store: Store): NodeJS.Timeout {
  const prune = () => store.prune(Date.now() - RECEIPT_TTL_MS).catch(() => {});
  void prune();
  return setInterval(prune, PRUNE_EVERY_MS).unref();
}

export async function startHub(config: Config, logError: (message: string) => void = console.error): Promise<RunningHub> {
  const store = openStore(config);
  const policy = { allowPrivate: config.allowPrivateTargets };
  const signer = await Signer.open({ load: () => store.loadSigningKeys() as Promise<StoredKey[]>, save: (key) => store.saveSigningKey(key) });
  // The outbox tells the hub what a forwarded task's endpoint answered; the hub pokes the outbox.
  let hub: Hub | undefined;
  const onAttempt = async (delivery: Delivery, response: Buffer | undefined) => {
    if (delivery.channel === FORWARD_CHANNEL) await hub?.tasks.recordForwarding(delivery, response);
  };
  const headersFor = async (delivery: Delivery) => (hub ? hub.push.credentials(delivery) : {});
  const outbox = new Outbox(store, signer, {
    retries: config.deliveryRetries,
    policy,
    onAttempt,
    headersFor,
    onError: (e) => logError(`muster: a delivery attempt failed (retried when its lease ends): ${(e as Error).message}`),
  });
  hub = createHub(store, {
    adminToken: config.adminToken,
    rateLimits: config.rateLimits,
    targets: policy,
    deliveriesQueued: () => outbox.poke(),
    review: config.review,
  });
  // Deadlines: every process runs one; the lease and the task's compare-and-set make each run once.
  const deadlines = new LeasedWork<DueWork>({
    name: 'deadlines',
    claim: (owner, now, until, limit) => store.claimDue(owner, now, until, limit),
    run: (work, owner) => hub!.tasks.runDue(work, owner),
    next: () => store.nextDue(),
    batch: 500,
    pollMs: 250,
    leaseMs: 30_000,
    onError: (e) => logError(`muster: scheduled work failed (retried when its lease ends): ${(e as Error).message}`),
  });
  const app = buildApp(hub, {
    streams: config.streams,
    signer,
    publicUrl: config.publicUrl,
    registration: config.registration,
    adminTokenFingerprint: fingerprint(config.adminToken),
    logError: (error, request) => logError(`muster: ${request.method} ${request.url.split('?')[0]} failed: ${(error as Error).stack ?? String(error)}`),
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await store.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`port ${config.port} on ${config.host} is already in use`);
    if (code === 'EACCES') throw new ConfigError(`no permission to listen on ${config.host}:${config.port}`);
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${reason(e)}`);
  }
  const pruner = startPruning(store);
  outbox.start();
  deadlines.start();
  const { port } = app.server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = config.publicUrl?.href ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/`;
  return {
    url,
    port,
    close: async () => {
      clearInterval(pruner);
      await app.close();
      await deadlines.stop();
      await outbox.stop();
      await store.close();
    },
  };
}
