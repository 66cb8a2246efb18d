/**
 * Work under a lock (TaskStore.underLock): one transaction that first takes the advisory lock
 * of the key's name, then runs the work's task reads and writes on its own connection. Another
 * process (or this one) that takes the lock waits until this transaction ends; its statements
 * then read with fresh snapshots, so they see what this work wrote. Reads and writes stay on the
 * lock's connection: a work waiting for the lock holds one connection, and never asks for a second
 * (which a pool full of waiters would not give). Works under one key in this process queue here
 * first, so a burst of them holds one of the pool's connections, not all of them.
 */
import type { LockedTasks, TaskCommitted } from '../store.js';
import { clientDb, type Db } from './database.js';
import type { Announcer } from './events.js';
import { taskReader } from './task-reads.js';
import { taskWriter } from './tasks.js';
import { PerKeyQueue } from '../per-key-queue.js';

/**
 * The first key of the two-key advisory locks these take: the second is the name's hash. (Two-key
 * locks never meet the migration's one-key lock.) Two names with one hash share a lock, which
 * costs only waiting.
 */
const TASK_LOCKS = 0x6d75;

export function lockedWork(db: Db, announcer: Announcer) {
  const waiting = new PerKeyQueue();
  return <T>(key: string, work: (tasks: LockedTasks) => Promise<T>): Promise<T> =>
    waiting.run(key, () => locked(db, announcer, key, work));
}

async function locked<T>(
  db: Db,
  announcer: Announcer,
  key: string,
  work: (tasks: LockedTasks) => Promise<T>,
): Promise<T> {
  let commits: TaskCommitted[] = [];
  const result = await db.transaction(async (client) => {
    commits = []; // a transaction retried whole announces only what its last attempt wrote
    await client.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2::text))', [TASK_LOCKS, key]);
    const tx = clientDb(client);
    const reads = taskReader(tx);
    // Announced once the transaction committed, not when its statement ran.
    const writes = taskWriter(tx, {
      taskCommitted: (c) => void commits.push(c),
      agentNotice: (handle, change) => announcer.agentNotice(handle, change),
      agentChanged: (handle, change) => announcer.agentChanged(handle, change),
    });
    return work({ getTask: reads.getTask, listTasks: reads.listTasks, createTask: writes.createTask });
  });
  for (const c of commits) announcer.taskCommitted(c);
  return result;
}
