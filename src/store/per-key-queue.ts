/**
 * Runs the work given under one key one piece after another, in arrival order; different keys
 * run freely, in this process only. The tasks service changes each task through it, so
 * concurrent changes to one task (fifty answers to an open call at once) follow each other
 * instead of losing the compare-and-set race again and again (the compare-and-set stays: it
 * guards against other processes on the same database). The SQLite store's locks are these
 * queues: that store is exclusive, so its one process is every process (TaskStore.underLock).
 */
export class PerKeyQueue {
  /** Per key, the end of its queue: settles (never rejects) when the last queued work is done. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
