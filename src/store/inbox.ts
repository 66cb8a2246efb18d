/**
 * Agents' inboxes as logs, and who is listening to them. Each agent has its own log, numbered
 * 1, 2, 3… without gaps: what is addressed to it (a new task, the sender's follow-up, a cancel),
 * written by the task write that makes the change (TaskWrite.inbox), in the same transaction, so
 * nothing is logged that is not stored and nothing stored is not logged. The numbers become
 * readable in order, on every process: a reader that holds seq N never later finds a new N-1.
 * SQLite numbers events as it writes them (one writer). PostgreSQL writes them unnumbered, with no
 * per-agent lock (writes to one agent would otherwise queue on it until their commits), and
 * whoever reads the log numbers the committed ones first, under the agent's head row. Each commit
 * is announced on the store's events as `inboxKey(handle)` reaching its last seq, or UNNUMBERED.
 *
 * An agent's log is kept only from its first listen (beginInboxLog): until then nobody can read it,
 * so a write to an agent that never listened logs nothing. The first listener adds the agent's
 * open tasks to the log (completeInboxLog), ahead of what was logged since the log began.
 *
 * Presence: a live inbox stream holds a lease per stream (a holder id and an end), refreshed
 * while the stream lives and dropped when it closes; an agent is listening while any of its
 * leases has not ended, by the database's clock on a shared store. A process that dies leaves
 * its leases to run out.
 */
import type { InboxEvent } from '../wire/inbox.js';

export { inboxTaskId, type InboxEvent } from '../wire/inbox.js';

/** What one task write adds to its target's inbox. */
export interface InboxDraft {
  agent: string;
  events: InboxEvent[];
}

export interface LoggedInboxEvent {
  seq: number;
  event: InboxEvent;
}

/** The last seq of an inbox commit announced before its events are numbered: a reader reads the log to learn it. */
export const UNNUMBERED = 0;

/** The key an inbox's commits are announced under (beside task ids: those are UUIDs, never this). */
export const inboxKey = (handle: string): string => `inbox:${handle}`;

/** Whether a commit's log is an inbox's (inboxKey), not a task's. */
export const isInboxKey = (log: string): boolean => log.startsWith('inbox:');

/**
 * The log a first listener starts from: each open task the log does not hold yet, as its `task`
 * event, then what was logged since the log began, in order, less the follow-ups the tasks'
 * histories already hold (so a message is given once, in the history or as its own event).
 */
export function firstLog(opening: readonly TaskEvent[], logged: readonly InboxEvent[]): InboxEvent[] {
  const inLog = new Set(logged.filter((e) => e.kind === 'task').map((e) => e.task.id));
  const added = opening.filter((e) => !inLog.has(e.task.id));
  const held = new Map(added.map((e) => [e.task.id, new Set((e.task.history ?? []).map((m) => m.messageId))]));
  return [...added, ...logged.filter((e) => e.kind !== 'message' || !held.get(e.taskId)?.has(e.message.messageId))];
}

export type TaskEvent = Extract<InboxEvent, { kind: 'task' }>;

export interface InboxStore {
  /**
   * Starts keeping the agent's log, if nothing has yet: from then on every write addressed to it
   * logs its events. Answers true when the log is complete (a first listener added its open
   * tasks). On a shared store it answers only once every write that may have found no log has
   * ended, so the reads after it see them all.
   */
  beginInboxLog(agent: string): Promise<boolean>;
  /**
   * Completes a begun log, once: puts `opening` (the agent's open tasks, read after beginInboxLog)
   * ahead of what was logged since it began, as firstLog says. A log already complete is left as it is.
   */
  completeInboxLog(agent: string, opening: readonly TaskEvent[]): Promise<void>;
  /** The seq of the agent's last inbox event (0 when it has none). */
  inboxHead(agent: string): Promise<number>;
  /** The agent's inbox events above `afterSeq`, in order, at most `limit`. */
  inboxAfter(agent: string, afterSeq: number, limit: number): Promise<LoggedInboxEvent[]>;
  /**
   * The agent's inbox events in (`afterSeq`, `throughSeq`] of the tasks it targets that are now in
   * one of `states`, in order, at most `limit` (the open tasks replayed to a new listener);
   * `throughSeq` is a head inboxHead answered.
   */
  inboxOfTasksIn(
    agent: string,
    afterSeq: number,
    throughSeq: number,
    states: readonly string[],
    limit: number,
  ): Promise<LoggedInboxEvent[]>;
  /** Holds (or renews) the lease `holder` has on the agent's presence, for `ttlMs` from now. */
  holdPresence(agent: string, holder: string, ttlMs: number): Promise<void>;
  dropPresence(agent: string, holder: string): Promise<void>;
}
