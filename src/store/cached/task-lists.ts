import { LRUCache } from 'lru-cache';

/**
 * One list per task (its push configs, its entries) for the tasks last used, kept in step with
 * the writes made through the cache layer, which alone may write them (see cached-store.ts). A
 * task created through the layer starts with the list its creation wrote; a list read on a miss
 * is kept only if no write of these lists landed while the read was out.
 */
export class TaskLists<T> {
  private readonly lists: LRUCache<string, T[]>;
  /** Bumped by every write of these lists. */
  private writes = 0;

  constructor(capacity: number) {
    this.lists = new LRUCache({ max: capacity });
  }

  /** A copy of the task's list; `read` reads it from the database on a miss. */
  async get(taskId: string, read: () => Promise<T[]>): Promise<T[]> {
    const hit = this.lists.get(taskId);
    if (hit) return [...hit];
    const seen = this.writes;
    const list = await read();
    if (seen === this.writes) this.lists.set(taskId, list);
    return [...list];
  }

  /** The task was created with these items, and nothing else can have written its list yet. */
  created(taskId: string, items: T[]): void {
    this.writes++;
    this.lists.set(taskId, items);
  }

  /** A write that changes the task's list in a way not followed here: the list is read again after it. */
  rewrites<R>(taskId: string, write: () => Promise<R>): Promise<R> {
    this.forget(taskId);
    return write().finally(() => this.forget(taskId));
  }

  /** A write that adds `item` at the end of the task's list: appended once it commits. */
  appends<R>(taskId: string, item: T, write: Promise<R>): Promise<R> {
    return write.then(
      (result) => {
        this.writes++;
        this.lists.get(taskId)?.push(item);
        return result;
      },
      (e: unknown) => {
        this.forget(taskId);
        throw e;
      },
    );
  }

  private forget(taskId: string): void {
    this.writes++;
    this.lists.delete(taskId);
  }
}
