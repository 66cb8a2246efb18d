/**
 * Inbox logs and presence (store/inbox.ts). A write's inbox events are CTEs of its statement:
 * the head row's increment (which locks it until the commit, so seqs become visible in order),
 * then the events numbered from it. Presence leases end by the database's clock.
 */
import { inboxTaskId, type InboxDraft, type LoggedInboxEvent } from '../inbox.js';
import type { Db, Statement } from './database.js';

/** Adds `inbox_head` (the log's new last seq) and the events after `after`; answers the CTE to read the end from. */
export function appendInbox(s: Statement, draft: InboxDraft | undefined, at: number, after: string): string | undefined {
  if (!draft) return undefined;
  const agent = s.param(draft.agent, 'text');
  const count = s.param(draft.events.length, 'int');
  s.with(
    'inbox_head',
    `INSERT INTO inbox_heads (handle, last_seq) SELECT ${agent}, ${count} FROM ${after}
     ON CONFLICT (handle) DO UPDATE SET last_seq = inbox_heads.last_seq + EXCLUDED.last_seq, changed_at = muster_now_ms() RETURNING last_seq`,
  );
  s.with(
    'inbox_events',
    `INSERT INTO inbox_events (handle, seq, task_id, body, created_at)
     SELECT ${agent}, h.last_seq - ${count} + e.i, e.t, e.b, ${s.param(at, 'int8')}
     FROM inbox_head h, unnest(${s.param(draft.events.map(inboxTaskId), 'text[]')}, ${s.param(draft.events.map((e) => JSON.stringify(e)), 'text[]')}) WITH ORDINALITY AS e(t, b, i)
     RETURNING seq`,
  );
  return 'inbox_head';
}

const logged = (rows: { seq: number; body: string }[]): LoggedInboxEvent[] => rows.map((r) => ({ seq: r.seq, event: JSON.parse(r.body) }));

export function inboxStatements(db: Db) {
  return {
    inboxHead: async (agent: string) => (await db.query<{ last_seq: number }>('SELECT last_seq FROM inbox_heads WHERE handle = $1', [agent])).rows[0]?.last_seq ?? 0,
    inboxAfter: async (agent: string, afterSeq: number, limit: number) =>
      logged((await db.query<{ seq: number; body: string }>('SELECT seq, body FROM inbox_events WHERE handle = $1 AND seq > $2 ORDER BY seq LIMIT $3', [agent, afterSeq, limit])).rows),
    inboxOfTasksIn: async (agent: string, afterSeq: number, throughSeq: number, states: readonly string[], limit: number) =>
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
    dropPresence: async (agent: string, holder: string) => void (await db.query('DELETE FROM inbox_presence WHERE handle = $1 AND holder = $2', [agent, holder])),
    answerable: async (agent: string) =>
      (
        await db.query(
          `SELECT EXISTS (SELECT 1 FROM inbox_presence WHERE handle = $1 AND until > muster_now_ms())
               OR EXISTS (SELECT 1 FROM agents WHERE handle = $1 AND forwarding AND endpoint_rpc_url IS NOT NULL AND endpoint_verified_at IS NOT NULL) AS answerable`,
          [agent],
        )
      ).rows[0]?.answerable === true,
  };
}
