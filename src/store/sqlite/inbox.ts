import type { Db } from './database.js';
import {
  firstLog,
  inboxTaskId,
  type InboxDraft,
  type InboxEvent,
  type InboxStore,
  type LoggedInboxEvent,
  type TaskEvent,
} from '../inbox.js';

type Row = { seq: number; body: string };
const logged = (rows: unknown[]): LoggedInboxEvent[] =>
  (rows as Row[]).map((r) => ({ seq: r.seq, event: JSON.parse(r.body) }));

/**
 * Inbox logs and presence (store/inbox.ts). One process owns the file and writes one write at a
 * time, so an event's seq is the log's last plus one, read from the log's own key; its clock is the clock.
 */
export function inboxStatements(db: Db, clock: () => number = Date.now) {
  const append = db
    .prepare(
      `INSERT INTO inbox_events (handle, seq, task_id, body, created_at)
     VALUES (@agent, (SELECT COALESCE(MAX(seq), 0) + 1 FROM inbox_events WHERE handle = @agent), @task, @body, @at) RETURNING seq`,
    )
    .pluck();
  const head = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM inbox_events WHERE handle = ?').pluck();
  const after = db.prepare('SELECT seq, body FROM inbox_events WHERE handle = ? AND seq > ? ORDER BY seq LIMIT +?');
  const ofTasksIn = db.prepare(
    `SELECT e.seq, e.body FROM tasks t JOIN inbox_events e ON e.handle = t.target AND e.task_id = t.id
     WHERE t.target = ? AND t.state IN (SELECT value FROM json_each(?)) AND e.seq > ? AND e.seq <= ? ORDER BY e.seq LIMIT +?`,
  );
  const logState = db.prepare('SELECT complete FROM inbox_logs WHERE handle = ?').pluck();
  // The agents whose logs have begun: this process alone writes the file, so the set is exact,
  // and a task write to an agent nobody listened for reads nothing to learn it has no log.
  const begun = new Set(db.prepare('SELECT handle FROM inbox_logs').pluck().all() as string[]);
  const begin = db.prepare('INSERT INTO inbox_logs (handle, complete) VALUES (?, 0) ON CONFLICT (handle) DO NOTHING');
  const bodies = db.prepare('SELECT body FROM inbox_events WHERE handle = ? ORDER BY seq').pluck();
  const clear = db.prepare('DELETE FROM inbox_events WHERE handle = ?');
  const put = db.prepare('INSERT INTO inbox_events (handle, seq, task_id, body, created_at) VALUES (?, ?, ?, ?, ?)');
  const completed = db.prepare('UPDATE inbox_logs SET complete = 1 WHERE handle = ?');
  // Nobody has read a log that is not complete (a listener completes it first), so it is written again whole, numbered from 1.
  const complete = db.transaction((agent: string, opening: readonly TaskEvent[], now: number) => {
    if (logState.get(agent) !== 0) return;
    const since = (bodies.all(agent) as string[]).map((body) => JSON.parse(body) as InboxEvent);
    clear.run(agent);
    firstLog(opening, since).forEach((e, i) => put.run(agent, i + 1, inboxTaskId(e), JSON.stringify(e), now));
    completed.run(agent);
  });
  const hold = db.prepare(
    'INSERT INTO inbox_presence (handle, holder, until) VALUES (?, ?, ?) ON CONFLICT (handle, holder) DO UPDATE SET until = excluded.until',
  );
  const drop = db.prepare('DELETE FROM inbox_presence WHERE handle = ? AND holder = ?');
  const expired = db.prepare('DELETE FROM inbox_presence WHERE until <= ?');

  /** Appends a write's inbox events inside its transaction; answers the log's new last seq, or undefined: the agent has no log. */
  const write = (draft: InboxDraft, now: number): number | undefined => {
    if (!begun.has(draft.agent)) return undefined; // nobody has listened: nobody could read them
    let last = 0;
    for (const e of draft.events)
      last = append.get({ agent: draft.agent, task: inboxTaskId(e), body: JSON.stringify(e), at: now }) as number;
    return last;
  };

  // The store's part and the task writer's `write` share `begun`, so one factory makes both.
  const store: InboxStore = {
    // One process writes, one write at a time: no write can be running while a log begins.
    beginInboxLog: async (agent: string) => {
      begin.run(agent);
      begun.add(agent);
      return logState.get(agent) === 1;
    },
    completeInboxLog: async (agent: string, opening: readonly TaskEvent[]) => complete(agent, opening, clock()),
    inboxHead: async (agent: string) => head.get(agent) as number,
    inboxAfter: async (agent: string, afterSeq: number, limit: number) => logged(after.all(agent, afterSeq, limit)),
    inboxOfTasksIn: async (
      agent: string,
      afterSeq: number,
      throughSeq: number,
      states: readonly string[],
      limit: number,
    ) => logged(ofTasksIn.all(agent, JSON.stringify(states), afterSeq, throughSeq, limit)),
    holdPresence: async (agent: string, holder: string, ttlMs: number) => {
      expired.run(clock());
      hold.run(agent, holder, clock() + ttlMs);
    },
    dropPresence: async (agent: string, holder: string) => void drop.run(agent, holder),
  };
  return { write, store };
}
