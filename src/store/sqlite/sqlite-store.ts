import { dirname } from 'node:path';
import { makeFolder } from '../../files/folders.js';
import { openDatabase, type Db } from './database.js';
import { identityStatements, tokenLiveness } from './identity.js';
import { operatorStatements } from './operators.js';
import { targetReads } from './targets.js';
import { spaceStatements } from './spaces.js';
import { boardStatements } from './boards.js';
import { taskReader } from './task-reads.js';
import { taskWriter } from './tasks.js';
import { inboxStatements } from './inbox.js';
import { nodeStatements } from './nodes.js';
import { deliveryStatements, outboxStore } from './outbox.js';
import { signingKeyStatements } from './signing-keys.js';
import { entryReads, entryStatements } from './entries.js';
import { dueWorkStatements, scheduleStore } from './schedule.js';
import { receiptIndex, receiptStore } from './receipts.js';
import { holdExclusively } from './ownership.js';
import { backgroundCheckpoints } from './checkpoints.js';
import { PerKeyQueue } from '../per-key-queue.js';
import type { MigrationInputs } from '../open-key-backfill.js';
import { EventBus, HOLD_WINDOW, type CommitObserver, type Store, type TaskStore } from '../store.js';

/** Receipts pruned per turn of the event loop (about 30 ms of work). */
const PRUNE_SLICE = 10_000;

/** How the store is opened: `applied` hears the migrations applied, `observe` each commit, `log` what it cannot say in an error. */
export interface SqliteOptions {
  applied?: (versions: number[]) => void;
  observe?: CommitObserver;
  inputs?: MigrationInputs;
  log?: (line: string) => void;
}

/**
 * The embedded store: one SQLite file in WAL mode, owned by one hub process, which it enforces
 * (ownership.ts): so it is exclusive, keeps its receipt index in memory, and announces commits in
 * process. Calls are synchronous underneath.
 */
export function openSqliteStore(file: string, { applied, observe, inputs, log = () => {} }: SqliteOptions = {}): Store {
  if (file !== ':memory:') makeFolder(dirname(file)); // the lock lives beside the file
  const release = holdExclusively(file);
  let db: Db;
  try {
    db = openDatabase(file, applied, inputs);
  } catch (e) {
    release();
    throw e;
  }
  const checkpoints =
    file === ':memory:'
      ? undefined
      : backgroundCheckpoints(db, file, (e) =>
          log(`the WAL checkpoint thread stopped (${e.message}); checkpoints continue on the main thread`),
        );
  const committed: CommitObserver = (seconds, writes) => {
    checkpoints?.nudge();
    observe?.(seconds, writes);
  };
  const bus = new EventBus();
  const receipts = receiptIndex(db);
  const inbox = inboxStatements(db);
  const tokenLive = tokenLiveness(db);
  const writes = taskWriter(
    db,
    bus,
    deliveryStatements(db),
    entryStatements(db),
    dueWorkStatements(db),
    receipts,
    tokenLive,
    targetReads(db),
    inbox,
    committed,
  );
  // The store is exclusive: a lock held in this process is held against every writer of the file.
  const locks = new PerKeyQueue();
  const tasks: TaskStore = {
    ...taskReader(db, tokenLive),
    ...writes,
    ...entryReads(db),
    underLock: (key, work) => locks.run(key, () => work(tasks)),
  };

  // Each part is its concern's contract (store/<concern>.ts) over this file; the store is all of them.
  const store: Store = {
    name: 'sqlite',
    exclusive: true,
    events: bus,
    ...tasks,
    ...identityStatements(db, bus),
    ...operatorStatements(db, bus),
    ...spaceStatements(db),
    ...boardStatements(db),
    ...outboxStore(db),
    ...scheduleStore(db),
    ...receiptStore(db, receipts),
    ...signingKeyStatements(db),
    ...inbox.store,
    ...nodeStatements(db),
    prune: pruning(db, receipts),
    close: async () => {
      await checkpoints?.stop();
      db.close();
      release();
    },
  };
  return store;
}

/**
 * Forgets receipts written before `before`, quota windows that ended before it, and finished
 * deliveries older than a week before it.
 */
function pruning(db: Db, receipts: ReturnType<typeof receiptIndex>): Store['prune'] {
  const pruneQuotas = db.prepare('DELETE FROM quota_counters WHERE window_start < ? AND window_start != ?');
  const pruneDeliveries = db.prepare("DELETE FROM deliveries WHERE state != 'pending' AND created_at < ?");
  return async (before) => {
    // In slices, so a day of receipts (after an outage, say) never holds the event loop for long.
    while (receipts.prune(before, PRUNE_SLICE) === PRUNE_SLICE) await new Promise((r) => setImmediate(r));
    pruneQuotas.run(before - 86_400_000, HOLD_WINDOW); // the longest window is a day; holds are kept
    pruneDeliveries.run(before - 6 * 86_400_000); // finished deliveries stay visible for a week
  };
}
