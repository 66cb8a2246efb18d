/**
 * What a task write may leave out of its statement, as far as this process knows: a new task's
 * inbox events and its forward are the bulk of its statement, and most agents neither listen for
 * their inbox nor forward. A write leaves them out for an agent the process does not know needs
 * them; its statement checks that on the agent's row (targets.ts, MU428) and, if it was wrong,
 * writes nothing, and the write is made again with them. So several processes stay exact.
 */
import type { InboxDraft, LazyForward } from '../store.js';

export class Omissions {
  /** Agents whose inbox logs have begun. Logs never end, so this only grows and never errs that way. */
  readonly begunLogs = new Set<string>();
  /** Agents last found forwarding. A hint only (forwarding switches off and on), which every write corrects. */
  readonly forwarders = new Set<string>();
}

/** What a write left out that its agent needs (found by its statement): it is made again with it. */
export class OmittedNeeded extends Error {
  constructor(
    readonly agent: string,
    readonly what: 'inbox' | 'forward',
  ) {
    super(`the write to ${agent} needs its ${what}`);
    this.name = 'OmittedNeeded';
  }
}

// Without `known` (a write that cannot be made again, inside a transaction) nothing is left out.

/** Whether a write leaves out its inbox events: `known` has not seen the agent's log begin. */
export const omitsInbox = (draft: InboxDraft | undefined, known: Omissions | undefined): boolean =>
  draft !== undefined && known !== undefined && !known.begunLogs.has(draft.agent);

/** Whether a write leaves out its forward: `known` has not seen the agent forward. */
export const omitsForward = (forward: LazyForward | undefined, known: Omissions | undefined): boolean =>
  forward !== undefined && known !== undefined && !known.forwarders.has(forward.to);

/** Learns from a write that was refused for what it left out. */
export function learn(known: Omissions | undefined, e: OmittedNeeded): void {
  (e.what === 'inbox' ? known?.begunLogs : known?.forwarders)?.add(e.agent);
}
