/**
 * Inbox logs and presence (store/inbox.ts). A write adds its inbox events unnumbered, as a CTE of
 * its statement, taking no lock: writes to one agent do not wait on each other. A reader numbers
 * the committed ones first (muster_inbox_number, migration 11), under the agent's head row, so the
 * numbers are gapless and become visible in order. Presence leases end by the database's clock.
 *
 * A write logs only for an agent whose log has begun (inbox_logs), as its statement's snapshot
 * shows it (Omissions); so a log's beginning waits out every transaction that was running when it
 * began (beginInboxLog), and only then may its first listener read the open tasks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  firstLog,
  inboxTaskId,
  type InboxDraft,
  type InboxEvent,
  type InboxStore,
  type LoggedInboxEvent,
  type TaskEvent,
} from '../inbox.js';
import { StoreUnavailable } from '../store.js';
import type { PoolClient } from 'pg';
import type { Db, Statement } from './database.js';
import { omitsInbox, type Omissions } from './omissions.js';

/** The CTE of the inbox events a write added: one row each. */
export const INBOX_EVENTS = 'inbox_events';

/**
 * Adds the write's inbox events (unnumbered, in order) after the CTE `after`, logged when the
 * agent's log has begun; none when the write leaves them out (omitsInbox: its target check refuses
 * it if the log has begun). Answers the CTE, if it added it.
 */
export function appendInbox(
  s: Statement,
  draft: InboxDraft | undefined,
  at: number,
  after: string,
  known: Omissions | undefined,
): string | undefined {
  if (!draft || omitsInbox(draft, known)) return undefined;
  const agent = s.param(draft.agent, 'text');
  // With `known`, the log has begun (it was not left out) and logs never end: only a write inside a transaction asks.
  const hasLog = known ? '' : `WHERE EXISTS (SELECT 1 FROM inbox_logs WHERE handle = ${agent})`;
  s.with(
    INBOX_EVENTS,
    `INSERT INTO inbox_events (handle, task_id, body, created_at)
     SELECT ${agent}, e.t, e.b, ${s.param(at, 'int8')}
     FROM ${after}, unnest(${s.param(draft.events.map(inboxTaskId), 'text[]')}, ${s.param(
       draft.events.map((e) => JSON.stringify(e)),
       'text[]',
     )}) WITH ORDINALITY AS e(t, b, i)
     ${hasLog}
     ORDER BY e.i RETURNING 1`,
  );
  return INBOX_EVENTS;
}

/** The longest a log's beginning waits for the transactions that were running when it began. */
const BEGIN_WAIT_MS = 30_000;

/**
 * Waits until no transaction of this database's client backends that began before now is still
 * running: every statement that read the tables before now has then committed or rolled back.
 * Only the hub's own role's transactions show their start, and only they write its tables.
 */
async function waitOutRunningTransactions(db: Db): Promise<void> {
  const until = Date.now() + BEGIN_WAIT_MS;
  const [{ now }] = (await db.query<{ now: string }>('SELECT clock_timestamp()::text AS now')).rows as [
    { now: string },
  ];
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    const { rows } = await db.query<{ running: number }>(
      `SELECT count(*)::int AS running FROM pg_stat_activity
       WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start < $1::timestamptz`,
      [now],
    );
    if (rows[0]!.running === 0) return;
    if (Date.now() > until)
      throw new StoreUnavailable(
        `an inbox log could not begin: ${rows[0]!.running} transaction(s) older than ${BEGIN_WAIT_MS / 1000} s are still running`,
      );
    await sleep(pause);
  }
}

const logged = (rows: { seq: number; body: string }[]): LoggedInboxEvent[] =>
  rows.map((r) => ({ seq: r.seq, event: JSON.parse(r.body) }));

export function inboxStatements(db: Db, known: Omissions): InboxStore {
  return {
    beginInboxLog: async (agent: string) => {
      await db.query(
        `WITH logged AS (UPDATE agents SET inbox_logged = true WHERE handle = $1 AND NOT inbox_logged)
         INSERT INTO inbox_logs (handle, complete) VALUES ($1, false) ON CONFLICT (handle) DO NOTHING`,
        [agent],
      );
      known.begunLogs.add(agent);
      const { rows } = await db.query<{ complete: boolean }>('SELECT complete FROM inbox_logs WHERE handle = $1', [
        agent,
      ]);
      if (rows[0]?.complete) return true;
      await waitOutRunningTransactions(db); // writes that found no log have ended: what they wrote is there to read
      return false;
    },
    completeInboxLog: (agent: string, opening: readonly TaskEvent[]) =>
      db.transaction((client) => completeLog(client, agent, opening)),
    inboxHead: async (agent: string) =>
      (await db.query<{ head: number }>('SELECT muster_inbox_number($1) AS head', [agent])).rows[0]!.head,
    inboxAfter: async (agent: string, afterSeq: number, limit: number) =>
      logged(
        (
          await db.query<{ seq: number; body: string }>('SELECT seq, body FROM muster_inbox_after($1, $2, $3)', [
            agent,
            afterSeq,
            limit,
          ])
        ).rows,
      ),
    inboxOfTasksIn: async (
      agent: string,
      afterSeq: number,
      throughSeq: number,
      states: readonly string[],
      limit: number,
    ) =>
      logged(
        (
          await db.query<{ seq: number; body: string }>(
            `SELECT e.seq, e.body FROM tasks t JOIN inbox_events e ON e.handle = t.target AND e.task_id = t.id
             WHERE t.target = $1 AND t.state = ANY($2::text[]) AND e.seq > $3 AND e.seq <= $4 ORDER BY e.seq LIMIT $5`,
            [agent, states, afterSeq, throughSeq, limit],
          )
        ).rows,
      ),
    holdPresence: async (agent: string, holder: string, ttlMs: number) => {
      await db.query(
        `WITH gone AS (DELETE FROM inbox_presence WHERE handle = $1 AND holder <> $2 AND until <= muster_now_ms())
         INSERT INTO inbox_presence (handle, holder, until) VALUES ($1, $2, muster_now_ms() + $3)
         ON CONFLICT (handle, holder) DO UPDATE SET until = EXCLUDED.until`,
        [agent, holder, ttlMs],
      );
    },
    dropPresence: async (agent: string, holder: string) =>
      void (await db.query('DELETE FROM inbox_presence WHERE handle = $1 AND holder = $2', [agent, holder])),
  };
}

/**
 * Completes a begun log in one transaction, under its inbox_logs row (another node's listener
 * completing it too waits, then finds it complete): what was logged since it began is unnumbered
 * (nobody reads a log before it is complete), so it is written again after the open tasks, numbered;
 * events committed meanwhile stay unnumbered, to be numbered after them.
 */
async function completeLog(client: PoolClient, agent: string, opening: readonly TaskEvent[]): Promise<void> {
  const state = await client.query<{ complete: boolean }>(
    'SELECT complete FROM inbox_logs WHERE handle = $1 FOR UPDATE',
    [agent],
  );
  if (state.rows[0]?.complete !== false) return;
  const since = await client.query<{ id: number; body: string }>(
    'SELECT id, body FROM inbox_events WHERE handle = $1 AND seq IS NULL ORDER BY id',
    [agent],
  );
  const events = firstLog(
    opening,
    since.rows.map((r) => JSON.parse(r.body) as InboxEvent),
  );
  await client.query('INSERT INTO inbox_heads (handle, last_seq) VALUES ($1, 0) ON CONFLICT (handle) DO NOTHING', [
    agent,
  ]);
  const head = (
    await client.query<{ last_seq: number }>('SELECT last_seq FROM inbox_heads WHERE handle = $1 FOR UPDATE', [agent])
  ).rows[0]!.last_seq;
  await client.query('DELETE FROM inbox_events WHERE id = ANY($1::int8[])', [since.rows.map((r) => r.id)]);
  await client.query(
    `INSERT INTO inbox_events (handle, seq, task_id, body, created_at)
     SELECT $1, $2 + e.i, e.t, e.b, muster_now_ms() FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS e(t, b, i)`,
    [agent, head, events.map(inboxTaskId), events.map((e) => JSON.stringify(e))],
  );
  await client.query('UPDATE inbox_heads SET last_seq = $2, changed_at = muster_now_ms() WHERE handle = $1', [
    agent,
    head + events.length,
  ]);
  await client.query('UPDATE inbox_logs SET complete = true WHERE handle = $1', [agent]);
}
