import type { LoggedEvent } from '../store/store.js';

type Watcher = (lastSeq: number, events: readonly LoggedEvent[]) => void;

/**
 * In-process wake-ups: after a write commits, the task service says "task X now ends at seq N"
 * and hands over the events it just stored, so subscribers that are caught up take them without
 * reading the log again; one that is behind reads the log itself. Nothing is announced here that
 * the store does not already hold. (With PostgreSQL, LISTEN/NOTIFY will feed the same call.)
 */
export class Wakeups {
  private readonly watchers = new Map<string, Set<Watcher>>();

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
