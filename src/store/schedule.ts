/**
 * Work due on a task at a time (a review's deadline). A store promises that one item is leased
 * to one owner at a time, whichever process claims it; that a lease that runs out lets another
 * owner claim the item; and that only the holder of a lease finishes it.
 */

/** Work due on a task (a deadline), claimed with a lease by one scheduler at a time. */
export interface DueWork {
  taskId: string;
  dueAt: number;
}

export interface ScheduleStore {
  /** Leases up to `limit` items of work due at `now` to `owner` until `leaseUntil`. */
  claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<DueWork[]>;
  /** When the earliest scheduled work falls due, if there is any. */
  nextDue(): Promise<number | undefined>;
  /** Forgets a task's due work when `owner` holds its lease (the work needed no write). */
  finishDue(taskId: string, owner: string): Promise<void>;
}
