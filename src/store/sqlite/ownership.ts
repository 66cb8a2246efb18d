import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

interface Holder {
  pid: number;
  host: string;
  startedAt: string;
}

/** Another process holds the database file; the store refuses to open it. */
export class DatabaseInUse extends Error {
  constructor(readonly file: string, readonly holder: Holder, lock: string) {
    super(
      `the database ${file} is in use by process ${holder.pid} on ${holder.host} (since ${holder.startedAt}); ` +
        `stop that process first, or delete ${lock} if it is no longer running`,
    );
    this.name = 'DatabaseInUse';
  }
}

const readHolder = (lock: string): Holder | undefined => {
  try {
    const holder = JSON.parse(readFileSync(lock, 'utf8')) as Holder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined; // unreadable or half-written: treated as stale
  }
};

/** A process on another host cannot be checked from here, so it counts as running. */
const running = (holder: Holder): boolean => {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return false; // a lock left by an earlier life of this very pid
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Makes this process the only one on the SQLite file, as PostgreSQL's postmaster.pid does: a
 * lock file beside it names the holder. A lock whose process is gone (a SIGKILL, a crash) is
 * stale and taken over. Answers the release, which deletes the lock if it is still ours.
 */
export function holdExclusively(file: string): () => void {
  if (file === ':memory:') return () => {};
  const lock = `${file}.lock`;
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() } satisfies Holder);
  for (;;) {
    try {
      writeFileSync(lock, mine, { flag: 'wx', mode: 0o600 });
      return () => {
        try {
          if (readFileSync(lock, 'utf8') === mine) unlinkSync(lock);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readHolder(lock);
    if (holder && running(holder)) throw new DatabaseInUse(file, holder, lock);
    // Moved aside rather than deleted, so of two processes taking over one stale lock only one succeeds.
    const aside = `${lock}.stale-${process.pid}`;
    try {
      renameSync(lock, aside);
      unlinkSync(aside);
    } catch {
      // another process moved it first; try again
    }
  }
}
