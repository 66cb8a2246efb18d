import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { touchFile } from '../../files/folders.js';

interface Holder {
  pid: number;
  host: string;
  startedAt: string;
}

/** Another process holds the database file; the store refuses to open it. */
export class DatabaseInUse extends Error {
  constructor(
    readonly file: string,
    holder: Holder | undefined,
  ) {
    const who = holder ? `process ${holder.pid} on ${holder.host} (since ${holder.startedAt})` : 'another process';
    super(`the database ${file} is in use by ${who}; stop that process first`);
    this.name = 'DatabaseInUse';
  }
}

/**
 * Makes this process the only one on the SQLite file. The operating system holds the lock: a
 * small SQLite file beside the database (`<file>.lock`) kept in an open write transaction, which
 * no other connection, in this process or another, can also begin, and which ends when the
 * process does, however it ends (a crash, a SIGKILL, a container replaced). The lock file also
 * names its holder, so a refused process can say who it is. Answers the release.
 */
export function holdExclusively(file: string): () => void {
  if (file === ':memory:') return () => {};
  touchFile(`${file}.lock`); // a refusal in the system's words, not SQLite's "unable to open"
  const lock = new Database(`${file}.lock`, { timeout: 0 }); // busy: refuse at once rather than wait
  try {
    lock.exec('BEGIN IMMEDIATE');
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, host TEXT NOT NULL, started_at TEXT NOT NULL)');
    // Say who holds it (committed, so a refused process can read it), then take the lock again for good.
    lock.exec('DELETE FROM holder');
    lock
      .prepare('INSERT INTO holder (pid, host, started_at) VALUES (?, ?, ?)')
      .run(process.pid, hostname(), new Date().toISOString());
    // A refused process reading the holder blocks the commit for a moment: wait for it, not for a holder.
    lock.pragma('busy_timeout = 2000');
    lock.exec('COMMIT');
    lock.pragma('busy_timeout = 0');
    lock.exec('BEGIN IMMEDIATE'); // another process that got in between holds it now, and this one is refused
  } catch (e) {
    const refusal = (e as { code?: string }).code === 'SQLITE_BUSY' ? new DatabaseInUse(file, holderOf(lock)) : e;
    lock.close();
    throw refusal;
  }
  return () => {
    if (lock.open) lock.close(); // ends the transaction: the lock is free
  };
}

function holderOf(lock: Database.Database): Holder | undefined {
  try {
    const row = lock.prepare('SELECT pid, host, started_at AS startedAt FROM holder').get() as Holder | undefined;
    return row;
  } catch {
    return undefined; // the holder is between its two takes
  }
}
