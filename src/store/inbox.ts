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
 * Presence: a live inbox stream holds a lease per stream (a holder id and an end), refreshed
 * while the stream lives and dropped when it closes; an agent is listening while any of its
 * leases has not ended, by the database's clock on a shared store. A process that dies leaves
 * its leases to run out.
 */
import type { Message, Task } from '../a2a/types.js';

export type InboxEvent =
  | { kind: 'task'; task: Task; acceptedOutputModes?: readonly string[] }
  | { kind: 'message'; taskId: string; message: Message; acceptedOutputModes?: readonly string[] }
  | { kind: 'cancel'; taskId: string; reason?: string };

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

/** The task an inbox event is about. */
export const inboxTaskId = (event: InboxEvent): string => (event.kind === 'task' ? event.task.id : event.taskId);

export interface InboxStore {
  /** The seq of the agent's last inbox event (0 when it has none). */
  inboxHead(agent: string): Promise<number>;
  /** The agent's inbox events above `afterSeq`, in order, at most `limit`. */
  inboxAfter(agent: string, afterSeq: number, limit: number): Promise<LoggedInboxEvent[]>;
  /**
   * The agent's inbox events in (`afterSeq`, `throughSeq`] of the tasks it targets that are now in
   * one of `states`, in order, at most `limit` (the open tasks replayed to a new listener);
   * `throughSeq` is a head inboxHead answered.
   */
  inboxOfTasksIn(agent: string, afterSeq: number, throughSeq: number, states: readonly string[], limit: number): Promise<LoggedInboxEvent[]>;
  /** Holds (or renews) the lease `holder` has on the agent's presence, for `ttlMs` from now. */
  holdPresence(agent: string, holder: string, ttlMs: number): Promise<void>;
  dropPresence(agent: string, holder: string): Promise<void>;
  /**
   * True while someone can answer the agent's tasks now: one of its presence leases has not run
   * out, or it forwards its tasks to its verified endpoint. One statement, asked by every blocking send.
   */
  answerable(agent: string): Promise<boolean>;
}
