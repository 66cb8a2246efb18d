import type { AgentPaused } from '../store.js';
import type { Db } from './database.js';

/** What a task write asks of the agent it goes to, in one read inside its transaction. */
export interface Target {
  handle: string;
  /** Set when the agent is paused, as its refusal names it (AgentPaused). */
  paused?: AgentPaused['agent'];
  /** Its input modes; undefined: the defaults. */
  modes?: readonly string[];
  /** It forwards its tasks to its verified endpoint (so a new task's forward is drafted). */
  forwards: boolean;
}

/** paused_at, paused_by, operator, input_modes, forwards (raw rows: the read runs for every task write). */
type Row = [number | null, string | null, string | null, string | null, number];

/** An agent's pause, input modes and forwarding (TaskWrite.unlessPaused, takes, forward) in one statement. */
export function targetReads(db: Db): (handle: string) => Target {
  const read = db
    .prepare(
      `SELECT a.paused_at, a.paused_by, a.operator, a.input_modes,
         COALESCE(a.forwarding = 1 AND a.endpoint_rpc_url IS NOT NULL AND a.endpoint_verified_at IS NOT NULL, 0)
       FROM (SELECT 1) one LEFT JOIN agents a ON a.handle = ?`,
    )
    .raw();
  return (handle) => {
    const [pausedAt, pausedBy, operator, modes, forwards] = read.get(handle) as Row;
    const target: Target = { handle, forwards: forwards === 1 };
    if (modes !== null) target.modes = JSON.parse(modes);
    if (pausedAt !== null)
      target.paused = {
        handle,
        ...(operator ? { operator } : {}),
        paused: { at: pausedAt, by: pausedBy === 'admin' ? 'admin' : 'operator' },
      };
    return target;
  };
}
