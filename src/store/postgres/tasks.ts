/**
 * Task writes. Each write (its row, messages, artifacts, events, entry, receipt, quota charges,
 * deliveries and schedule) is ONE statement of data-modifying CTEs: alone, PostgreSQL runs it as
 * its own transaction; group-committed with the other writes of its turn (group-commit.ts), the
 * group's transaction stands or falls whole, and a member that fails runs again alone. Either
 * way the write stands whole or not at all. Every part after the row reads the row's CTE
 * (`task_row`), so it is written after the row and only with it; the checks that come first (the
 * receipt, the lease on due work, the entry rule, the caller's token) are CTEs the row joins, so
 * it waits for them (see `guards`).
 *
 * A refusal inside the statement (an entry's rule, a lost lease, a compare-and-set that matched no
 * version, a quota over its limit) raises, rolling back what the statement wrote; a unique
 * violation (task id, receipt) does the same. database.ts maps both to the store's errors.
 */
import {
  inboxKey,
  loggedEvents,
  UNNUMBERED,
  type EntryWrite,
  type SealedWrite,
  type TaskCreated,
  type TaskStore,
  type TaskWrite,
} from '../store.js';
import { Statement, type Db } from './database.js';
import type { WriteLocks } from './group-commit.js';
import { chargeQuotas, writeReceipt } from './receipts.js';
import type { Announcer } from './events.js';
import { enqueueDeliveries, enqueueForward } from './outbox.js';
import { appendInbox } from './inbox.js';
import { learn, omitsForward, OmittedNeeded, type Omissions } from './omissions.js';
import { targetChecks } from './targets.js';
import { finishDueWith, scheduleDue } from './schedule.js';
import { TASK_COLUMNS } from '../rows.js';
import { liveTokenTest, taskValues } from './task-reads.js';
import { entryFromRow, type EntryRow } from '../rows.js';

/** `known`: what the process's writes may leave out (omissions.ts); none inside a transaction (a write there cannot be made again). */
export function taskWriter(
  db: Db,
  announcer: Announcer,
  known?: Omissions,
): Pick<TaskStore, 'createTask' | 'updateTask' | 'addEntry'> {
  /**
   * Runs a write's statement (group-committed); `checks` name the CTEs that raise its refusals,
   * which the main query must read; `locks` the rows it will wait on.
   */
  const run = async (
    s: Statement,
    checks: (string | undefined)[],
    locks: WriteLocks,
  ): Promise<Record<string, number>> => {
    const reads = checks.filter((c) => c !== undefined).map((c) => `(SELECT count(*) FROM ${c})::int AS ${c}`);
    return (await db.write<Record<string, number>>(s.text(`SELECT ${reads.join(', ')}`), s.values, locks)).rows[0]!;
  };

  const writeOnce = async (kind: 'create' | 'update', w: TaskWrite): Promise<TaskCreated> => {
    const s = new Statement();
    const id = s.param(w.record.id, 'text');
    const guard = guards(s, id, w, known);
    if (kind === 'create') insertRow(s, id, w, guard);
    else updateRow(s, id, w, guard);
    if (w.entry) insertEntry(s, w.entry, 'gate, task_row');
    writeHistory(s, id, w);
    enqueueDeliveries(s, w.deliveries, w.record.updatedAt, 'task_row');
    const forward = omitsForward(w.forward, known)
      ? undefined
      : enqueueForward(s, w.forward?.draft(), w.record.updatedAt, 'task_row');
    if (w.dueDone === undefined) scheduleDue(s, w.dueAt, 'task_row'); // done wins, as in SQLite (scheduled, then removed)
    const inbox = appendInbox(s, w.inbox, w.record.updatedAt, 'task_row', known);
    // Quotas come last: their counter rows are the hottest locks a write takes (one agent's
    // writes all charge the same rows), so they are held from the end of the statement to its commit.
    // A new task's row is nobody's to wait on; an update, or an entry's rule, locks the task's row.
    const locks = { tasks: kind === 'update' || w.entry ? [w.record.id] : [], quotas: w.quotas };
    const counts = await run(
      s,
      [kind === 'update' ? versionCheck(s, id) : 'task_row', chargeQuotas(s, w.quotas, 'task_row'), forward, inbox],
      locks,
    );
    // Told after the commit, here and (batched, see events.ts) to the other processes.
    announcer.taskCommitted({ log: w.record.id, lastSeq: w.record.lastSeq, events: loggedEvents(w) });
    if (w.inbox && inbox && counts[inbox]! > 0)
      announcer.taskCommitted({ log: inboxKey(w.inbox.agent), lastSeq: UNNUMBERED, events: [] });
    const forwarded = counts['forward'] === 1;
    if (forward && !forwarded) known?.forwarders.delete(w.forward!.to); // it stopped forwarding
    return { forwarded };
  };

  /** A write that left out what its agent needs stood not at all: made again with it (at most once for each thing it may leave out). */
  const write = async (kind: 'create' | 'update', w: TaskWrite): Promise<TaskCreated> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await writeOnce(kind, w);
      } catch (e) {
        if (!(e instanceof OmittedNeeded) || attempt > 2) throw e;
        learn(known, e);
      }
    }
  };

  /** A sealed entry alone: the task row, its history and log stay as they are, so nothing is announced. */
  const seal = async (w: SealedWrite): Promise<void> => {
    const s = new Statement();
    const receipt = writeReceipt(s, w.receipt, w.entry.createdAt);
    entryGate(s, s.param(w.entry.taskId, 'text'), w, undefined, receipt);
    insertEntry(s, w, 'gate', 'task_row');
    await run(s, ['task_row', chargeQuotas(s, w.quotas, 'task_row')], { tasks: [w.entry.taskId], quotas: w.quotas });
  };

  return {
    createTask: (w: TaskWrite) => write('create', w),
    updateTask: async (w: TaskWrite) => void (await write('update', w)),
    addEntry: seal,
  };
}

/**
 * Adds what a write's row waits for and answers the last of them: the refusals that come before its
 * compare-and-set, each a CTE of one row (or it raises) joining the one before, so they run in
 * this order: the receipt (a retry racing its first write through another process is answered
 * from it, whatever else changed), the lease on due work, the entry rule, the caller's token, the
 * agents the write goes to (pause, parts, what the write left out).
 */
function guards(s: Statement, id: string, w: TaskWrite, known: Omissions | undefined): string | undefined {
  let last = writeReceipt(s, w.receipt, w.record.updatedAt);
  if (w.dueDone !== undefined) last = finishDueWith(s, id, w.dueDone, last);
  last = entryGate(s, id, w.entry, w.entriesSeen, last) ?? last;
  last = liveToken(s, w.liveToken, w.tokenGate, last) ?? last;
  return targetChecks(s, w, last, known);
}

/** Adds `live_token`, one row when the token with this hash is live; else it raises MU401 (TokenNotLive). */
function liveToken(
  s: Statement,
  hash: string | undefined,
  gate: TaskWrite['tokenGate'],
  after: string | undefined,
): string | undefined {
  if (hash === undefined) return undefined;
  s.with('live_token', `SELECT ${liveTokenTest(s, hash, gate)}${after ? ` FROM ${after}` : ''}`);
  return 'live_token';
}

/**
 * Adds the check that the compare-and-set matched: when it did not, the statement raises
 * StoreConflict 'version', so nothing it did before the row (a lease's removal) stands either.
 */
function versionCheck(s: Statement, id: string): string {
  s.with(
    'version_held',
    `SELECT muster_refuse('MU409', 'version', format('task %s changed since it was read', ${id})) WHERE NOT EXISTS (SELECT 1 FROM task_row)`,
  );
  return 'version_held';
}

/**
 * Adds `gate`: the entry rule (muster_entry_gate, see migrations.ts) checked under the task row's
 * lock, which concurrent entries and evaluations of the task queue on. Answers its name, if it added it.
 */
function entryGate(
  s: Statement,
  taskId: string,
  entry: EntryWrite | undefined,
  seen: number | undefined,
  after: string | undefined,
): string | undefined {
  if (!entry && seen === undefined) return undefined;
  const author = s.param(entry?.entry.author ?? null, 'text');
  const state = s.param(entry?.whileState ?? null, 'text');
  const max = s.param(entry?.max ?? null, 'int');
  s.with(
    'gate',
    `SELECT muster_entry_gate(${taskId}, ${author}, ${state}, ${max}, ${s.param(seen ?? null, 'int')}) AS pos${after ? ` FROM ${after}` : ''}`,
  );
  return 'gate';
}

function insertRow(s: Statement, id: string, w: TaskWrite, guard: string | undefined): void {
  const values = taskValues(w.record).map(([value, type], i) => (i === 0 ? id : s.param(value, type)));
  s.with(
    'task_row',
    `INSERT INTO tasks (${TASK_COLUMNS.join(', ')}, changed_at)
     SELECT ${values.join(', ')}, muster_now_ms()${from(guard)} RETURNING id`,
  );
}

/** Joining the last guard makes the row's write wait for all of them (they have one row each, or raise). */
const from = (guard: string | undefined) => (guard ? ` FROM ${guard}` : '');

/** The compare-and-set: the row is written only at the version the writer read. */
function updateRow(s: Statement, id: string, w: TaskWrite, guard: string | undefined): void {
  const sets = taskValues(w.record)
    .slice(1)
    .map(([value, type], i) => `${TASK_COLUMNS[i + 1]} = ${s.param(value, type)}`);
  s.with(
    'task_row',
    `UPDATE tasks SET ${sets.join(', ')}, changed_at = muster_now_ms()${from(guard)}
     WHERE tasks.id = ${id} AND tasks.version = ${s.param(w.expectedVersion ?? null, 'int')} RETURNING tasks.id`,
  );
}

/** Adds the entry's insert, at the position the gate counted; `from` names the CTEs it waits for. */
function insertEntry(s: Statement, { entry }: EntryWrite, from: string, name = 'entry'): void {
  s.with(
    name,
    `INSERT INTO task_entries (task_id, author, id, position, body, created_at)
     SELECT ${s.param(entry.taskId, 'text')}, ${s.param(entry.author, 'text')}, ${s.param(entry.id, 'text')}, gate.pos,
       ${s.param(JSON.stringify(entry.body), 'text')}, ${s.param(entry.createdAt, 'int8')} FROM ${from} RETURNING task_id`,
  );
}

/**
 * `values` as JSON text rows (b, i), numbered from 1, under `alias`. One value (a SendMessage's
 * message, its event) is bound as text: the hub does not escape it into an array literal, nor
 * PostgreSQL parse the array and unnest it.
 */
function numbered(s: Statement, values: readonly unknown[], alias: string): string {
  if (values.length === 1) return `(SELECT ${s.param(JSON.stringify(values[0]), 'text')} AS b, 1 AS i) AS ${alias}`;
  return `unnest(${s.param(
    values.map((v) => JSON.stringify(v)),
    'text[]',
  )}) WITH ORDINALITY AS ${alias}(b, i)`;
}

/** Messages, artifacts and events, each one multi-row insert numbered from the row's new counts. */
function writeHistory(s: Statement, id: string, w: TaskWrite): void {
  const { record } = w;
  if (w.newMessages.length) {
    const first = record.messageCount - w.newMessages.length;
    s.with(
      'messages',
      `INSERT INTO messages (task_id, seq, body)
       SELECT ${id}, ${s.param(first, 'int')} + m.i, m.b FROM task_row, ${numbered(s, w.newMessages, 'm')}`,
    );
  }
  if (w.newArtifacts.length) {
    // One row per artifact id (a statement may write a row once): the last body, at its first place.
    const bodies = new Map<string, string>();
    for (const a of w.newArtifacts) bodies.set(a.artifactId, JSON.stringify(a));
    s.with(
      'artifacts',
      `INSERT INTO artifacts (task_id, artifact_id, position, body)
       SELECT ${id}, a.aid, (SELECT COALESCE(MAX(x.position) + 1, 0) FROM artifacts x WHERE x.task_id = ${id}) + a.i - 1, a.b
       FROM task_row, unnest(${s.param([...bodies.keys()], 'text[]')}, ${s.param([...bodies.values()], 'text[]')}) WITH ORDINALITY AS a(aid, b, i)
       ON CONFLICT (task_id, artifact_id) DO UPDATE SET body = EXCLUDED.body`,
    );
  }
  if (w.wrote?.length) {
    s.with(
      'paths',
      `INSERT INTO task_paths (context_id, path, written_at, task_id)
       SELECT ${s.param(record.contextId, 'text')}, p.path, ${s.param(record.updatedAt, 'int8')}, ${id}
       FROM task_row, unnest(${s.param([...new Set(w.wrote)], 'text[]')}) AS p(path) ON CONFLICT DO NOTHING`,
    );
  }
  if (w.events.length) {
    const first = record.lastSeq - w.events.length;
    s.with(
      'events',
      `INSERT INTO events (task_id, seq, body, created_at)
       SELECT ${id}, ${s.param(first, 'int')} + e.i, e.b, ${s.param(record.updatedAt, 'int8')}
       FROM task_row, ${numbered(s, w.events, 'e')}`,
    );
  }
}

/** Reads of a task's entries and its event log. */
export function entryReads(db: Db): Pick<TaskStore, 'entries' | 'entryOf' | 'entriesBy' | 'eventsAfter'> {
  return {
    entries: async (taskId: string) =>
      (
        await db.query<EntryRow>(
          'SELECT task_id, author, id, body, created_at FROM task_entries WHERE task_id = $1 ORDER BY position',
          [taskId],
        )
      ).rows.map(entryFromRow),
    entriesBy: async (author: string, limit: number) =>
      (
        await db.query<EntryRow>(
          `SELECT task_id, author, id, body, created_at FROM task_entries WHERE author = $1
           ORDER BY created_at DESC, task_id DESC LIMIT $2`,
          [author, limit],
        )
      ).rows.map(entryFromRow),
    entryOf: async (taskId: string, author: string) => {
      const { rows } = await db.query<EntryRow>(
        'SELECT task_id, author, id, body, created_at FROM task_entries WHERE task_id = $1 AND author = $2',
        [taskId, author],
      );
      return rows[0] && entryFromRow(rows[0]);
    },
    eventsAfter: async (taskId: string, afterSeq: number, limit: number) =>
      (
        await db.query<{ seq: number; body: string }>(
          'SELECT seq, body FROM events WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
          [taskId, afterSeq, limit],
        )
      ).rows.map((r) => ({ seq: r.seq, event: JSON.parse(r.body) })),
  };
}
