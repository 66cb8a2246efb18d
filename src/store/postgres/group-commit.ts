/**
 * Group commit: the task writes asked for in one turn of the event loop go to PostgreSQL together,
 * on one connection, in one write to its socket, as one transaction (each write's own statement,
 * under one Sync: one-sync.ts): one round trip, one reply and one WAL flush for the lot, where each
 * write alone costs all three. A group is answered only once it committed, so every write
 * acknowledged is durable; a write that comes alone in its turn runs alone, as before.
 *
 * A member that fails rolls the whole group back (PostgreSQL skips what follows and rolls back at
 * the Sync), so nothing of the group stands. The others go back to the front of the queue, for the
 * next group, and the member that failed runs again alone once those asked for before it are
 * answered (so of two writes with one receipt key the first asked for still stands): it fails with
 * its own error, or stands if its failure was passing. A member whose group fails a second time
 * runs alone too. So a refusal costs the others one more round trip, not one each.
 *
 * A group holds its row locks until it commits, so two groups that met on two rows in opposite
 * orders would deadlock where their members alone would not. Before its members, a group therefore
 * takes every lock they will wait on (the rows of the tasks they change, then their quota counters),
 * each kind in key order, as every single write takes them too (its task's row, then its counters
 * in key order): groups and single writes all lock in one order.
 */
import type pg from 'pg';
import type { QuotaCharge } from '../receipts.js';
import { inOneSync, type Rows, type Sent } from './one-sync.js';

/** The rows a write will wait on: the tasks it changes (not ones it creates) and its quota counters. */
export interface WriteLocks {
  tasks: readonly string[];
  quotas: readonly QuotaCharge[] | undefined;
}

interface Member {
  text: string;
  values: readonly unknown[];
  locks: WriteLocks;
  /** Back in the queue once, after another member sank its group. */
  requeued?: boolean;
  resolve(result: Rows): void;
  reject(error: unknown): void;
  /** Its caller's promise. */
  answered: Promise<Rows>;
}

/** Most writes in one group; any more wait for the next turn. */
const MAX_GROUP = 64;

export interface GroupOptions {
  /** Its connections must be in pipeline mode. */
  pool: pg.Pool;
  /** Runs one write alone (retried, its errors mapped): a group of one, and a member of a group that failed. */
  alone(text: string, values: readonly unknown[]): Promise<Rows>;
  /** The statement's name (prepared once per connection). */
  nameOf(text: string): string | undefined;
  /** The store's error for a driver error (a failed connection: StoreUnavailable). */
  storeError(e: unknown): unknown;
  isConnectionError(e: unknown): boolean;
  /** Hears of each group that committed: its time in seconds and its size. */
  observe?: (seconds: number, size: number) => void;
}

/** A function that runs one writing statement in the group of its turn. */
export function groupCommit(
  o: GroupOptions,
): (text: string, values: readonly unknown[], locks: WriteLocks) => Promise<Rows> {
  let queue: Member[] = [];
  let scheduled = false;

  const runAlone = (m: Member) => void o.alone(m.text, m.values).then(m.resolve, m.reject);

  const flush = async () => {
    scheduled = false;
    const members = queue.length > MAX_GROUP ? queue.splice(0, MAX_GROUP) : queue;
    if (members === queue) queue = [];
    else schedule();
    if (members.length === 1) return runAlone(members[0]!);
    let client: pg.PoolClient;
    try {
      client = await o.pool.connect();
    } catch (e) {
      for (const m of members) m.reject(o.storeError(e));
      return;
    }
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await inOneTransaction(client, members, o);
    } catch (e) {
      // The connection failed: whether the group committed is unknown, so no member runs again
      // (as a single write's lost connection is not retried either).
      client.release(e instanceof Error ? e : true);
      for (const m of members) m.reject(o.storeError(e));
      return;
    }
    client.release();
    if ('failed' in outcome) return retry(members, outcome.failed);
    o.observe?.((performance.now() - started) / 1000, members.length);
    members.forEach((m, i) => m.resolve(outcome.results[i]!));
  };

  /**
   * After a group rolled back: the others first in the queue (those already requeued alone), then
   * the member that failed alone, once those before it are answered. Unknown which failed: all alone.
   */
  const retry = (members: Member[], failed: number | undefined) => {
    if (failed === undefined) return members.forEach(runAlone);
    const requeued: Member[] = [];
    members.forEach((m, i) => {
      if (i === failed) return;
      if (m.requeued) runAlone(m);
      else requeued.push(Object.assign(m, { requeued: true }));
    });
    const culprit = members[failed]!;
    void Promise.allSettled(members.slice(0, failed).map((m) => m.answered)).then(() => runAlone(culprit));
    if (requeued.length === 0) return;
    queue = requeued.concat(queue);
    schedule();
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  return (text, values, locks) => {
    let member!: Member;
    const answered = new Promise<Rows>(
      (resolve, reject) => (member = { text, values, locks, resolve, reject } as Member),
    );
    member.answered = answered;
    queue.push(member);
    schedule();
    return answered;
  };
}

/** Takes the tasks' rows in id order (the rows a member changes, and its entry rule locks). */
const LOCK_TASKS = 'SELECT 1 FROM tasks WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE';
/** Takes the counters in key order (the order a write's own charges take them in, see receipts.ts), making the missing ones. */
const LOCK_QUOTAS = `INSERT INTO quota_counters (key, window_start, used)
  SELECT k, w, 0 FROM unnest($1::text[], $2::int8[]) AS q(k, w) ORDER BY k, w
  ON CONFLICT (key, window_start) DO UPDATE SET used = quota_counters.used`;

/** Each member's rows; or, when the group rolled back, which member failed (undefined: none of them, a lock did). */
type Outcome = { results: Rows[] } | { failed: number | undefined };

/** Sends the group in one socket write and answers its outcome. Throws when the connection failed (committed or not: unknown). */
async function inOneTransaction(client: pg.PoolClient, members: Member[], o: GroupOptions): Promise<Outcome> {
  const tasks = [...new Set(members.flatMap((m) => m.locks.tasks))];
  const quotas = new Map<string, [string, number]>();
  for (const q of members.flatMap((m) => m.locks.quotas ?? []))
    quotas.set(`${q.windowStart}|${q.key}`, [q.key, q.windowStart]);
  const statements: Sent[] = [];
  if (tasks.length) statements.push({ name: 'muster_group_tasks', text: LOCK_TASKS, values: [tasks] });
  if (quotas.size) {
    const locked = [...quotas.values()];
    statements.push({
      name: 'muster_group_quotas',
      text: LOCK_QUOTAS,
      values: [locked.map((q) => q[0]), locked.map((q) => q[1])],
    });
  }
  const first = statements.length;
  for (const m of members) statements.push({ name: o.nameOf(m.text), text: m.text, values: m.values });
  const outcome = await inOneSync(client, statements);
  if ('results' in outcome) return { results: outcome.results.slice(first) };
  if (o.isConnectionError(outcome.error)) throw outcome.error;
  const failed = outcome.failed - first;
  return { failed: failed >= 0 && failed < members.length ? failed : undefined };
}
