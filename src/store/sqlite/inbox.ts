import type { Db } from './database.js';
import { inboxTaskId, type InboxDraft, type LoggedInboxEvent } from '../inbox.js';

type Row = { seq: number; body: string };
export interface AgentTarget { modes: readonly string[] | undefined; answerable: boolean }
const logged = (rows: unknown[]): LoggedInboxEvent[] => (rows as Row[]).map((r) => ({ seq: r.seq, event: JSON.parse(r.body) }));

/** Inbox logs and presence (store/inbox.ts). One process owns the file, so its clock is the clock. */
export function inboxStatements(db: Db, clock: () => number = Date.now) {
  const bump = db.prepare(
    `INSERT INTO inbox_heads (handle, last_seq) VALUES (?, ?)
     ON CONFLICT (handle) DO UPDATE SET last_seq = last_seq + excluded.last_seq RETURNING last_seq`,
  ).pluck();
  const insert = db.prepare('INSERT INTO inbox_events (handle, seq, task_id, body, created_at) VALUES (?, ?, ?, ?, ?)');
  const head = db.prepare('SELECT last_seq FROM inbox_heads WHERE handle = ?').pluck();
  const after = db.prepare('SELECT seq, body FROM inbox_events WHERE handle = ? AND seq > ? ORDER BY seq LIMIT ?');
  const ofTasksIn = db.prepare(
    `SELECT e.seq, e.body FROM tasks t JOIN inbox_events e ON e.handle = t.target AND e.task_id = t.id
     WHERE t.target = ? AND t.state IN (SELECT value FROM json_each(?)) AND e.seq > ? AND e.seq <= ? ORDER BY e.seq LIMIT ?`,
  );
  const hold = db.prepare('INSERT INTO inbox_presence (handle, holder, until) VALUES (?, ?, ?) ON CONFLICT (handle, holder) DO UPDATE SET until = excluded.until');
  const drop = db.prepare('DELETE FROM inbox_presence WHERE handle = ? AND holder = ?');
  // One read of what a write to the agent asks (TaskWrite.takes, asksAnswerable) and of answerable.
  const target = db.prepare(
    `SELECT a.input_modes AS modes,
       EXISTS (SELECT 1 FROM inbox_presence WHERE handle = @agent AND until > @now)
       OR COALESCE(a.forwarding = 1 AND a.endpoint_rpc_url IS NOT NULL AND a.endpoint_verified_at IS NOT NULL, 0) AS answerable
     FROM (SELECT 1) one LEFT JOIN agents a ON a.handle = @agent`,
  );
  const targetOf = (agent: string): AgentTarget => {
    const row = target.get({ agent, now: clock() }) as { modes: string | null; answerable: number };
    return { modes: row.modes === null ? undefined : JSON.parse(row.modes), answerable: row.answerable === 1 };
  };
  const expired = db.prepare('DELETE FROM inbox_presence WHERE until <= ?');

  return {
    /** Appends a write's inbox events inside its transaction; answers the log's new last seq. */
    write(draft: InboxDraft, now: number): number {
      const last = bump.get(draft.agent, draft.events.length) as number;
      const first = last - draft.events.length;
      draft.events.forEach((e, i) => insert.run(draft.agent, first + i + 1, inboxTaskId(e), JSON.stringify(e), now));
      return last;
    },
    inboxHead: async (agent: string) => (head.get(agent) as number | undefined) ?? 0,
    inboxAfter: async (agent: string, afterSeq: number, limit: number) => logged(after.all(agent, afterSeq, limit)),
    inboxOfTasksIn: async (agent: string, afterSeq: number, throughSeq: number, states: readonly string[], limit: number) =>
      logged(ofTasksIn.all(agent, JSON.stringify(states), afterSeq, throughSeq, limit)),
    holdPresence: async (agent: string, holder: string, ttlMs: number) => {
      expired.run(clock());
      hold.run(agent, holder, clock() + ttlMs);
    },
    dropPresence: async (agent: string, holder: string) => void drop.run(agent, holder),
    answerable: async (agent: string) => targetOf(agent).answerable,
    /** The agent's input modes (undefined: the defaults) and whether someone can answer it, inside a write's transaction. */
    targetOf,
  };
}
