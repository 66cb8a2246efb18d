/**
 * Which agents' inbox logs have begun, as far as this process knows (inbox.ts): what lets a write
 * to an agent nobody listens for leave its inbox events out, safely on several processes.
 */
import type { InboxDraft } from '../inbox.js';

/**
 * The agents whose logs this process knows have begun. Logs never end, so the set only grows and
 * never errs that way; an agent missing from it may have a log another process began, which the
 * write's statement checks (targets.ts, MU428). So a write to an agent that never listened sends
 * none of its inbox events (the bulk of a new task's statement) and PostgreSQL writes none.
 */
export type BegunLogs = Set<string>;

/** A write left out its inbox events, but its agent's log has begun (found by its statement): written again with them. */
export class InboxLogBegun extends Error {
  constructor(readonly agent: string) {
    super(`the inbox log of ${agent} has begun`);
    this.name = 'InboxLogBegun';
  }
}

/** Whether a write sends no events for its inbox draft: `begun` does not know its log (none: a write that cannot be made again, inside a transaction, sends them). */
export const unlogged = (draft: InboxDraft | undefined, begun: BegunLogs | undefined): boolean =>
  draft !== undefined && begun !== undefined && !begun.has(draft.agent);
