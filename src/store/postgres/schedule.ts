/**
 * Work due on tasks: scheduled and forgotten inside task writes, claimed with a lease naming its
 * holder. FOR UPDATE SKIP LOCKED keeps two claimers off the same rows; a row whose lease another
 * claimer committed meanwhile is re-checked under its lock and left out. A lease that ran out can
 * be claimed by anyone.
 */
import type { DueWork, ScheduleStore } from '../store.js';
import type { Db, Statement } from './database.js';

/** Adds a task write's new schedule (clearing any lease), made once `anchor` has its row. */
export function scheduleDue(s: Statement, dueAt: number | undefined, anchor: string): void {
  if (dueAt === undefined) return;
  s.with(
    'due',
    `INSERT INTO due_work (task_id, due_at) SELECT ${anchor}.id, ${s.param(dueAt, 'int8')} FROM ${anchor}
     ON CONFLICT (task_id) DO UPDATE SET due_at = EXCLUDED.due_at, lease_owner = NULL, lease_until = 0`,
  );
}

/**
 * Adds the removal of a task's due work by `owner`, the holder of its lease (once the guard
 * `after` passed), and answers the CTE the write's row must wait for: it has a row when the lease is held, and raises StoreConflict
 * 'lease' when it is not (another scheduler claimed the work once the lease ran out), before the
 * row is written, so the write stands only with the lease. A concurrent claim and this delete
 * queue on the due row's lock; the loser re-reads the winner's row.
 */
export function finishDueWith(s: Statement, taskId: string, owner: string, after: string | undefined): string {
  s.with(
    'lease',
    `DELETE FROM due_work${after ? ` USING ${after}` : ''} WHERE due_work.task_id = ${taskId} AND lease_owner = ${s.param(owner, 'text')} RETURNING due_work.task_id`,
  );
  s.with(
    'lease_held',
    `SELECT COALESCE((SELECT 1 FROM lease), muster_refuse('MU409', 'lease', format('the lease on %s''s due work is not held by %s', ${taskId}, ${s.param(owner, 'text')}))) AS held`,
  );
  return 'lease_held';
}

const CLAIM = `
WITH due AS (
  SELECT task_id FROM due_work WHERE due_at <= $1 AND lease_until <= $1 ORDER BY due_at LIMIT $2
  FOR UPDATE SKIP LOCKED
)
UPDATE due_work SET lease_owner = $3, lease_until = $4 FROM due WHERE due_work.task_id = due.task_id
RETURNING due_work.task_id AS "taskId", due_work.due_at AS "dueAt"`;

export function scheduleStatements(db: Db): ScheduleStore {
  return {
    claimDue: async (owner: string, now: number, leaseUntil: number, limit: number): Promise<DueWork[]> => {
      const { rows } = await db.query<DueWork>(CLAIM, [now, limit, owner, leaseUntil]);
      return rows.sort((a, b) => a.dueAt - b.dueAt || (a.taskId < b.taskId ? -1 : 1));
    },
    nextDue: async (): Promise<number | undefined> => {
      const { rows } = await db.query<{ at: number | null }>('SELECT MIN(due_at) AS at FROM due_work');
      return rows[0]?.at ?? undefined;
    },
    finishDue: async (taskId: string, owner: string): Promise<void> => {
      await db.query('DELETE FROM due_work WHERE task_id = $1 AND lease_owner = $2', [taskId, owner]);
    },
  };
}
