/**
 * What a task write checks of the agents it goes to (TaskWrite.unlessPaused, takes, and that
 * what it leaves out its agent does not need: see omissions.ts), as CTEs of its
 * statement: one per agent, reading the agent's row once.
 *
 * The part check is the costly one (an unnest of the parts against the agent's modes, as JSON), so
 * it runs only for an agent that declared its own modes (muster_take_parts, migration 15): under
 * the defaults, the hub already knows the verdict (refusedPart) and the statement only says it.
 */
import { refusedPart, type PartsCheck, type TaskWrite } from '../store.js';
import type { Statement } from './database.js';
import { omitsForward, omitsInbox, type Omissions } from './omissions.js';

/** SQL true when the agents row `a` forwards its tasks to its verified endpoint. */
export const forwardsTest = (a: string): string =>
  `(${a}.forwarding AND ${a}.endpoint_rpc_url IS NOT NULL AND ${a}.endpoint_verified_at IS NOT NULL)`;

interface Checks {
  paused?: true;
  takes?: PartsCheck;
  /** The write leaves out its inbox events: refused (MU428, OmittedNeeded) if its log has begun. */
  unlogged?: true;
  /** The write leaves out its forward: refused (MU428) if it forwards. */
  unforwarded?: true;
}

/**
 * Adds the checks of `w` on its agents, each CTE joining the one before (so they run in order
 * after `after`); answers the last of them.
 */
export function targetChecks(
  s: Statement,
  w: Pick<TaskWrite, 'unlessPaused' | 'takes' | 'inbox' | 'forward'>,
  after: string | undefined,
  known: Omissions | undefined,
): string | undefined {
  const agents = new Map<string, Checks>();
  const of = (handle: string) => agents.get(handle) ?? agents.set(handle, {}).get(handle)!;
  if (w.unlessPaused !== undefined) of(w.unlessPaused).paused = true;
  if (w.takes !== undefined) of(w.takes.agent).takes = w.takes;
  if (omitsInbox(w.inbox, known)) of(w.inbox!.agent).unlogged = true;
  if (omitsForward(w.forward, known)) of(w.forward!.to).unforwarded = true;
  let last = after;
  for (const [handle, checks] of agents) {
    const name = `agent_${s.values.length + 1}`; // unique per statement: the handle's parameter is next
    s.with(name, agentCheck(s, s.param(handle, 'text'), checks, last));
    last = name;
  }
  return last;
}

/**
 * One row for the agent: `ok` (or it raises MU423 for a pause, MU415 for a part it does not take,
 * MU428 for a begun log or a forwarding the write left out).
 */
function agentCheck(s: Statement, agent: string, checks: Checks, after: string | undefined): string {
  const refusals: string[] = [];
  if (checks.paused)
    refusals.push(
      `WHEN a.paused_at IS NOT NULL THEN muster_refuse('MU423', a.handle, concat_ws('|', a.paused_at, a.paused_by, a.operator))`,
    );
  // Before the part check: its branch for an agent's own modes ends the CASE when the parts pass.
  // (A write made again with what it left out meets the part check then.)
  if (checks.unlogged) refusals.push(`WHEN a.inbox_logged THEN muster_refuse('MU428', a.handle, 'inbox')`);
  if (checks.unforwarded) refusals.push(`WHEN ${forwardsTest('a')} THEN muster_refuse('MU428', a.handle, 'forward')`);
  if (checks.takes) refusals.push(...partRefusals(s, agent, checks.takes));
  const ok = refusals.length ? `CASE ${refusals.join(' ')} ELSE 1 END` : '1';
  return `SELECT ${ok} AS ok FROM ${after ?? '(SELECT 1) one'} LEFT JOIN agents a ON a.handle = ${agent}`;
}

/**
 * The CASE branches that refuse a part (MU415: `index|modes as JSON|media type`, refusedPart's
 * rule): under the defaults, the verdict the hub already reached; else the agent's own modes, checked here.
 */
function partRefusals(s: Statement, agent: string, check: PartsCheck): string[] {
  const byDefault = refusedPart(check, check.defaults);
  const detail = `${byDefault}|${JSON.stringify(check.defaults)}|${check.mediaTypes[byDefault]}`;
  const underDefaults =
    byDefault < 0
      ? []
      : [`WHEN a.input_modes IS NULL THEN muster_refuse('MU415', ${agent}, ${s.param(detail, 'text')})`];
  const ownModes = `WHEN a.input_modes IS NOT NULL THEN muster_take_parts(${agent}, a.input_modes, ${s.param(check.mediaTypes, 'text[]')})`;
  return [...underDefaults, ownModes];
}
