/**
 * The shared store: any number of hub processes on one PostgreSQL database. Nothing here is
 * per-process state: receipts, quotas, leases and entry rules live in the database and are checked
 * by the statements that write them, so the store is not exclusive (nothing above it may cache).
 * The one thing a process remembers, what its task writes may leave out (omissions.ts), is checked
 * by every write that relies on it.
 * Commits are announced across processes with LISTEN/NOTIFY (events.ts).
 */
import { EventBus, type CommitObserver, type Store } from '../store.js';
import type pg from 'pg';
import { NO_MIGRATION_INPUTS, type MigrationInputs } from '../open-key-backfill.js';
import { connectClient, database, endPool, migrate, openPool, SILENCE_LIMITS, storeError } from './database.js';
import { Listener, type ListenOptions } from './events.js';
import { identityStatements } from './identity.js';
import { operatorStatements } from './operators.js';
import { outboxStatements, pruneDeliveries } from './outbox.js';
import { signingKeyStatements } from './signing-keys.js';
import { pruneReceipts, receiptStatements } from './receipts.js';
import { scheduleStatements } from './schedule.js';
import { spaceStatements } from './spaces.js';
import { boardStatements } from './boards.js';
import { taskReader } from './task-reads.js';
import { entryReads, taskWriter } from './tasks.js';
import { lockedWork } from './locks.js';
import { inboxStatements } from './inbox.js';
import { Omissions } from './omissions.js';
import { nodeStatements } from './nodes.js';

export interface PostgresOptions extends ListenOptions {
  /** Where the store says what it cannot say in an error (a lost LISTEN connection). */
  log?: (line: string) => void;
  /** Connections in the pool (each in-flight statement holds one). */
  poolSize?: number;
  /** Hears of each commit's time (metrics). */
  observe?: CommitObserver;
  /** What migrations that compute rows in TypeScript need (the kinds' open keys); none by default. */
  migrationInputs?: MigrationInputs;
}

/** Finished deliveries stay visible this long before `before` (a week, with the day of receipts `before` already is). */
const DELIVERIES_KEPT_MS = 6 * 86_400_000;

export async function openPostgresStore(url: string, options: PostgresOptions = {}): Promise<Store> {
  const log = options.log ?? ((line: string) => process.stderr.write(`muster: ${line}\n`));
  const pool = openPool(url, options.poolSize ?? 20, log);
  const bus = new EventBus();
  const db = database(pool, options.observe);
  const listener = new Listener(url, db, bus, log, options);
  try {
    await migrateWith(pool, options.migrationInputs ?? NO_MIGRATION_INPUTS);
    await listener.start();
  } catch (e) {
    await listener.close();
    await endPool(pool).catch(() => {});
    throw e;
  }
  // What this process's task writes may leave out (omissions.ts): the inbox part tells them of each log it begins.
  const omissions = new Omissions();

  // Each part is its concern's contract (store/<concern>.ts) over the database; the store is all of them.
  return {
    name: 'postgres',
    exclusive: false,
    events: bus,
    ...taskReader(db),
    ...taskWriter(db, listener, omissions),
    ...entryReads(db),
    underLock: lockedWork(db, listener),
    ...identityStatements(db, listener),
    ...operatorStatements(db, listener),
    ...spaceStatements(db),
    ...boardStatements(db),
    ...outboxStatements(db),
    ...scheduleStatements(db),
    ...receiptStatements(db),
    ...signingKeyStatements(db),
    ...inboxStatements(db, omissions),
    ...nodeStatements(db),
    prune: async (before) => {
      await pruneReceipts(db, before);
      await pruneDeliveries(db, before - DELIVERIES_KEPT_MS);
    },
    close: async () => {
      await listener.close();
      await endPool(pool);
    },
  };
}

async function migrateWith(pool: pg.Pool, inputs: MigrationInputs): Promise<number[]> {
  const client = await pool.connect().catch((e: unknown) => {
    throw storeError(e);
  });
  try {
    return await migrate(client, inputs);
  } finally {
    client.release();
  }
}

/** Applies pending migrations and disconnects (`muster migrate`); answers the versions it applied. */
export async function migratePostgres(url: string, inputs: MigrationInputs): Promise<{ applied: number[] }> {
  const client = await connectClient({ connectionString: url, application_name: 'muster-migrate', ...SILENCE_LIMITS });
  try {
    return { applied: await migrate(client, inputs) };
  } finally {
    await client.end();
  }
}
