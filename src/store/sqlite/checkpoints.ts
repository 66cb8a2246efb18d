import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/**
 * WAL checkpoints on a thread of their own. A checkpoint copies the WAL's pages into the database
 * file and fsyncs both; on the event loop every request waited behind those fsyncs. A worker with
 * its own connection copies them in PASSIVE mode (it never waits on, nor blocks, the writer) after
 * task commits, at most every PACE_MS, and every IDLE_MS in any case: the writes that do not go
 * through group commit (boards, identity) nudge nobody, and the main connection's own checkpoint
 * would otherwise copy their pages in one long stall. The main connection keeps an automatic checkpoint, every
 * MAIN_PAGES pages instead of SQLite's 1,000: the WAL restarts from its start only once all of it is
 * copied before the next write, which a checkpoint right after a commit on the writing connection
 * achieves; so that one keeps the file bounded, and with the worker ahead of it finds little to copy.
 */
export interface BackgroundCheckpoints {
  /** After a commit: the worker checkpoints when it is next free. Costs an atomic add. */
  nudge(): void;
  stop(): Promise<void>;
}

const PACE_MS = 20;
const IDLE_MS = 1_000;
const MAIN_PAGES = 4_000;
const SQLITE_DEFAULT_PAGES = 1_000;

// The worker's code, evaluated as a CommonJS script (so it runs the same from src under tests and
// from dist). It loads the driver from the path the hub resolved, not from its working folder.
const WORKER = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const signal = new Int32Array(workerData.signal); // [commits (wrapping), stop]
const pause = new Int32Array(new SharedArrayBuffer(4));
let seen = 0;
for (;;) {
  Atomics.wait(signal, 0, seen, ${IDLE_MS});
  if (Atomics.load(signal, 1)) break;
  seen = Atomics.load(signal, 0);
  db.pragma('wal_checkpoint(PASSIVE)');
  Atomics.wait(pause, 0, 0, ${PACE_MS});
}
db.close();
`;

/** `failed` hears why the worker stopped early; the main connection's checkpoints then carry on alone, as SQLite's default. */
export function backgroundCheckpoints(db: Db, file: string, failed: (e: Error) => void): BackgroundCheckpoints {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, signal: signal.buffer } });
  worker.unref();
  worker.on('error', (e) => {
    db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
    failed(e);
  });
  db.pragma(`wal_autocheckpoint = ${MAIN_PAGES}`);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    nudge: () => {
      Atomics.add(signal, 0, 1);
      Atomics.notify(signal, 0);
    },
    stop: () => {
      worker.ref(); // until it has closed its connection, even when nothing else keeps the process up
      Atomics.store(signal, 1, 1);
      Atomics.add(signal, 0, 1);
      Atomics.notify(signal, 0);
      return exited;
    },
  };
}
