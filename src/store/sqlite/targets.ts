import type { AgentPaused } from '../store.js';
import type { Db } from './database.js';

/** What a task write asks of the agent it goes to, in one read inside its transaction. */
export interface Target {
  handle: string;
  /** Set when the agent is paused, as its refusal names it (AgentPaused). */
  paused?: AgentPaused['agent'];
  /** Its input modes; undefined: the defaults. */
  modes?: readonly string[];
  /** Someone can answer it now: a live presence lease, or forwarding to its verified endpoint (InboxStore.answerable). */
  answerable: boolean;
}

interface Row { paused_at: number | null; paused_by: string | null; operator: string | null; modes: string | null; answerable: number }

/**
 * An agent's pause, input modes and answerability (TaskWrite.unlessPaused, takes, asksAnswerable)
 * in one statement. One process owns the file, so its clock is the clock of presence leases.
 */
export function targetReads(db: Db, clock: () => number = Date.now): (handle: string) => Target {
  const read = db.prepare(
    `SELECT a.paused_at, a.paused_by, a.operator, a.input_modes AS modes,
       EXISTS (SELECT 1 FROM inbox_presence WHERE handle = @agent AND until > @now)
       OR COALESCE(a.forwarding = 1 AND a.endpoint_rpc_url IS NOT NULL AND a.endpoint_verified_at IS NOT NULL, 0) AS answerable
     FROM (SELECT 1) one LEFT JOIN agents a ON a.handle = @agent`,
  );
  return (handle) => {
    const row = read.get({ agent: handle, now: clock() }) as Row;
    const target: Target = { handle, answerable: row.answerable === 1 };
    if (row.modes !== null) target.modes = JSON.parse(row.modes);
    if (row.paused_at !== null) target.paused = { handle, ...(row.operator ? { operator: row.operator } : {}), paused: { at: row.paused_at, by: row.paused_by === 'admin' ? 'admin' : 'operator' } };
    return target;
  };
}
