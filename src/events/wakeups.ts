import type { LoggedEvent, StoreEvents } from '../store/store.js';

type Watcher = (lastSeq: number, events: readonly LoggedEvent[]) => void;

/**
 * The subscribers of this process, by task. The store announces each commit, "task X now ends at
 * seq N", from whichever process made it (see store/events.ts); a commit made here comes with its
 * events, so subscribers that are caught up take them without reading the log again, and one
 * that is behind (or heard of a commit made elsewhere) reads the log itself. Nothing is announced
 * that the store does not already hold.
 */
export class Wakeups {
  private readonly watchers = new Map<string, Set<Watcher>>();

  constructor(events: StoreEvents) {
    // A commit's subscribers are woken after the tick that made it, so the writer's own answer
    // leaves first instead of waiting behind a write to every subscriber's socket. A task nobody
    // here follows schedules nothing: whoever starts to follow it later reads the log first.
    events.onTask((commit) => {
      if (this.watchers.has(commit.log)) setImmediate(() => this.wake(commit.log, commit.lastSeq, commit.events));
    });
  }

  watch(taskId: string, wake: Watcher): () => void {
    let set = this.watchers.get(taskId);
    if (!set) this.watchers.set(taskId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0) this.watchers.delete(taskId);
    };
  }

  wake(taskId: string, lastSeq: number, events: readonly LoggedEvent[] = []): void {
    for (const wake of this.watchers.get(taskId) ?? []) wake(lastSeq, events);
  }

  /** How many subscribers are waiting, for health and tests. */
  get size(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }
}
