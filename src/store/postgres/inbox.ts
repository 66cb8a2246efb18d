/**
 * Inbox logs and presence (store/inbox.ts). A write adds its inbox events unnumbered, as a CTE of
 * its statement, taking no lock: writes to one agent do not wait on each other. A reader numbers
 * the committed ones first (muster_inbox_number, migration 11), under the agent's head row, so the
 * numbers are gapless and become visible in order. Presence leases end by the database's clock.
 */
import { inboxTaskId, type InboxDraft, type LoggedInboxEvent } from '../inbox.js';
import type { Db, Statement } from './database.js';
import { forwardsTest, presentTest } from './targets.js';

/** Adds the write's inbox events (unnumbered, in order) after the CTE `after`. */
export function appendInbox(s: Statement, draft: InboxDraft | undefined, at: number, after: string): void {
  if (!draft) return;
  s.with(
    'inbox_events',
    `INSERT INTO inbox_events (handle, task_id, body, created_at)
     SELECT ${s.param(draft.agent, 'text')}, e.t, e.b, ${s.param(at, 'int8')}
     FROM ${after}, unnest(${s.param(draft.events.map(inboxTaskId), 'text[]')}, ${s.param(draft.events.map((e) => JSON.stringify(e)), 'text[]')}) WITH ORDINALITY AS e(t, b, i)
     ORDER BY e.i`,
  );
}

const logged = (rows: { seq: number; body: string }[]): LoggedInboxEvent[] => rows.map((r) => ({ seq: r.seq, event: JSON.parse(r.body) }));

export function inboxStatements(db: Db) {
  return {
    inboxHead: async (agent: string) => (await db.query<{ head: number }>('SELECT muster_inbox_number($1) AS head', [agent])).rows[0]!.head,
    inboxAfter: async (agent: string, afterSeq: number, limit: number) =>
      logged((await db.query<{ seq: number; body: string }>('SELECT seq, body FROM muster_inbox_after($1, $2, $3)', [agent, afterSeq, limit])).rows),
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
      (await db.query(`SELECT ${presentTest('$1')} OR EXISTS (SELECT 1 FROM agents a WHERE a.handle = $1 AND ${forwardsTest('a')}) AS answerable`, [agent])).rows[0]?.answerable === true,
  };
}
