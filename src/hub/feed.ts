/**
 * The web feed's live news: which public task changed, and how it now stands, for anyone. Built
 * from the store's commit announcements (on PostgreSQL they include other nodes' commits); each
 * changed task is read again through the view as an anonymous caller, so a private task, a memory
 * call or a sealed contribution (which announces nothing) never makes news.
 */
import type { TaskState } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import { ANONYMOUS } from '../identity/caller.js';
import type { StoreEvents } from '../store/events.js';
import { isInboxKey } from '../store/inbox.js';
import type { TaskService } from './tasks.js';

/** What the feed says about one change: all of it is what an anonymous GetTask shows. */
export interface FeedItem {
  id: string;
  kind: string;
  state: TaskState;
  updatedAt: string;
}

type Listener = (item: FeedItem) => void;

const ANYONE_AT_HUB = { caller: ANONYMOUS, door: { kind: 'hub' } } as const;

export class Feed {
  private readonly listeners = new Set<Listener>();
  private stopListening: (() => void) | undefined;
  /** Tasks whose read is scheduled and not yet started. */
  private readonly due = new Set<string>();

  constructor(
    private readonly events: StoreEvents,
    private readonly tasks: Pick<TaskService, 'get'>,
  ) {}

  /** Calls `listener` with each public change from now on; answers how to stop. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    // Read once the write's promise has settled, not inside the announcement: a store layer that
    // remembers tasks (store/cached) learns of the write only then, and would answer the task as it was.
    // Commits to one task that arrive before its read starts are told once, as the read finds it.
    this.stopListening ??= this.events.onTask(({ log }) => {
      if (isInboxKey(log) || this.due.has(log)) return; // an agent's inbox is never news to anyone else
      this.due.add(log);
      setImmediate(() => {
        this.due.delete(log);
        void this.tell(log);
      });
    });
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.stopListening?.();
      this.stopListening = undefined;
    };
  }

  private async tell(taskId: string): Promise<void> {
    // A read that fails (the database away) drops this piece of news: the pages read afresh when reloaded.
    const item = await this.read(taskId).catch(() => undefined);
    if (item) for (const listener of this.listeners) listener(item);
  }

  /** The task as anyone sees it, or undefined when anyone may not (or it is not a task: an inbox's announcement). */
  private async read(id: string): Promise<FeedItem | undefined> {
    try {
      const task = await this.tasks.get(ANYONE_AT_HUB, id, 0);
      const muster = task.metadata?.['muster'] as { kind?: unknown } | undefined;
      return {
        id: task.id,
        kind: typeof muster?.kind === 'string' ? muster.kind : 'task',
        state: task.status.state,
        updatedAt: task.status.timestamp ?? new Date().toISOString(),
      };
    } catch (e) {
      if (e instanceof HubError && e.code === 'TASK_NOT_FOUND') return undefined;
      throw e;
    }
  }
}
