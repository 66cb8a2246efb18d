import type { Db } from './database.js';
import { StoreConflict, type DueWork } from '../store.js';

/** Scheduled work per task: written and deleted inside task writes, claimed with a lease. */
export function dueWorkStatements(db: Db) {
  const upsert = db.prepare(
    `INSERT INTO due_work (task_id, due_at) VALUES (?, ?)
     ON CONFLICT (task_id) DO UPDATE SET due_at = excluded.due_at, lease_owner = NULL, lease_until = 0`,
  );
  const remove = db.prepare('DELETE FROM due_work WHERE task_id = ?');
  const removeHeld = db.prepare('DELETE FROM due_work WHERE task_id = ? AND lease_owner = ?');
  const claim = db.prepare(
    `UPDATE due_work SET lease_owner = @owner, lease_until = @until
     WHERE task_id IN (SELECT task_id FROM due_work WHERE due_at <= @now AND lease_until <= @now ORDER BY due_at LIMIT @limit)
     RETURNING task_id AS taskId, due_at AS dueAt`,
  );
  const earliest = db.prepare('SELECT MIN(due_at) FROM due_work').pluck();
  const holder = db.prepare('SELECT lease_owner FROM due_work WHERE task_id = ?').pluck();
  return {
    next: () => (earliest.get() as number | null) ?? undefined,
    schedule: (taskId: string, at: number) => void upsert.run(taskId, at),
    /** Refuses, writing nothing, unless `owner` holds the task's lease. */
    checkHeld: (taskId: string, owner: string) => {
      if (holder.get(taskId) !== owner) throw new StoreConflict('lease', `the lease on ${taskId}'s due work is not held by ${owner}`);
    },
    done: (taskId: string) => void remove.run(taskId),
    claim: (owner: string, now: number, until: number, limit: number) => claim.all({ owner, now, until, limit }) as DueWork[],
    finish: (taskId: string, owner: string) => void removeHeld.run(taskId, owner),
  };
}
