/**
 * Commits announce themselves. After each committed task write the store says which task reached
 * which sequence number; after a token or agent change it says whose. Every process that shares
 * the database hears it: SQLite has one process and tells it in process; PostgreSQL tells its own
 * process after the commit, NOTIFYs the others (token and agent changes in the writing
 * transaction; task commits batched right after them, since a NOTIFY in every write made commits
 * queue one at a time) and LISTENs on a connection of its own. An announcement is a hint, never
 * the data: a subscriber that hears late, or not at all, catches up from the event log (and on a
 * shared store re-reads it after a quiet while: events/follow.ts).
 */
import type { LoggedEvent } from './tasks.js';

export interface TaskCommitted {
  /** The log that reached `lastSeq`: a task's (its id) or an agent's inbox (inboxKey(handle), store/inbox.ts). */
  log: string;
  lastSeq: number;
  /** The write's events, when this process wrote them; empty when another process did (read the log). */
  events: readonly LoggedEvent[];
}

/** What changed about an agent: its tokens (rotated, revoked) or its record (endpoint, forwarding). */
export type AgentChange = 'tokens' | 'record';

export interface StoreEvents {
  onTask(listener: (commit: TaskCommitted) => void): () => void;
  onAgent(listener: (handle: string, change: AgentChange) => void): () => void;
}

/** The listeners of one process; a dialect calls `task` and `agent` for its own commits and for what it hears from others. */
export class EventBus implements StoreEvents {
  private readonly taskListeners = new Set<(commit: TaskCommitted) => void>();
  private readonly agentListeners = new Set<(handle: string, change: AgentChange) => void>();

  onTask(listener: (commit: TaskCommitted) => void): () => void {
    this.taskListeners.add(listener);
    return () => this.taskListeners.delete(listener);
  }

  onAgent(listener: (handle: string, change: AgentChange) => void): () => void {
    this.agentListeners.add(listener);
    return () => this.agentListeners.delete(listener);
  }

  task(commit: TaskCommitted): void {
    for (const listener of this.taskListeners) listener(commit);
  }

  agent(handle: string, change: AgentChange): void {
    for (const listener of this.agentListeners) listener(handle, change);
  }
}
