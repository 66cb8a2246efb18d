import type { Db } from './database.js';
import { StoreConflict, type DueWork, type ScheduleStore } from '../store.js';

/** Scheduled work per task, written and deleted inside task writes (plain calls, in their transaction). */
export function dueWorkStatements(db: Db) {
  const upsert = db.prepare(
    `INSERT INTO due_work (task_id, due_at) VALUES (?, ?)
     ON CONFLICT (task_id) DO UPDATE SET due_at = excluded.due_at, lease_owner = NULL, lease_until = 0`,
  );
  const remove = db.prepare('DELETE FROM due_work WHERE task_id = ?');
  const holder = db.prepare('SELECT lease_owner FROM due_work WHERE task_id = ?').pluck();
  return {
    schedule: (taskId: string, at: number) => void upsert.run(taskId, at),
    /** Refuses, writing nothing, unless `owner` holds the task's lease. */
    checkHeld: (taskId: string, owner: string) => {
      if (holder.get(taskId) !== owner)
        throw new StoreConflict('lease', `the lease on ${taskId}'s due work is not held by ${owner}`);
    },
    done: (taskId: string) => void remove.run(taskId),
  };
}

/** Scheduled work as the store's ScheduleStore: claimed with a lease, finished by its holder. */
export function scheduleStore(db: Db): ScheduleStore {
  const claim = db.prepare(
    `UPDATE due_work SET lease_owner = @owner, lease_until = @until
     WHERE task_id IN (SELECT task_id FROM due_work WHERE due_at <= @now AND lease_until <= @now ORDER BY due_at LIMIT +@limit)
     RETURNING task_id AS taskId, due_at AS dueAt`,
  );
  const earliest = db.prepare('SELECT MIN(due_at) FROM due_work').pluck();
  const removeHeld = db.prepare('DELETE FROM due_work WHERE task_id = ? AND lease_owner = ?');
  return {
    claimDue: async (owner: string, now: number, until: number, limit: number) =>
      claim.all({ owner, now, until, limit }) as DueWork[],
    finishDue: async (taskId: string, owner: string) => void removeHeld.run(taskId, owner),
    nextDue: async () => (earliest.get() as number | null) ?? undefined,
  };
}
