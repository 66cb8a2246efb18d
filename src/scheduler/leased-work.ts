import { randomUUID } from 'node:crypto';

export interface LeasedWorkOptions<T> {
  /** A name for the owner ids this worker leases under ("outbox", "deadlines"). */
  name: string;
  /** Leases up to `limit` items due at `now` to `owner` until `leaseUntil` (a store call). */
  claim: (owner: string, now: number, leaseUntil: number, limit: number) => Promise<T[]>;
  /** What names an item: one this process claims again while it is still running it (its lease ran out meanwhile) is not run twice. */
  key: (item: T) => string;
  /** Does one item; a failure leaves it leased until the lease runs out, then it is claimed again. */
  run: (item: T, owner: string) => Promise<void>;
  /** How long a claimed item stays ours: longer than one run can take. */
  leaseMs: number;
  /** The most items run at once: a slow one holds its own place only, and claiming goes on for the rest. */
  batch: number;
  /**
   * Claims up to this many batches at once (1 unless given), the rest leased and waiting here for
   * places: a burst pays for one claim (a transaction of its own) per that many batches.
   */
  claimAhead?: number;
  /** How often due work is looked for when nothing pokes the worker. */
  pollMs: number;
  /** When the next item falls due, if the store knows: the worker wakes then rather than at the next poll. */
  next?: () => Promise<number | undefined>;
  /** Told how late each item is when it starts (ms past the time it fell due), for the scheduler-lag metric. */
  lag?: { dueAt: (item: T) => number; report: (lateMs: number) => void };
  onError?: (error: unknown) => void;
  clock?: () => number;
}

/**
 * Drains work kept in the store: claims what is due with a lease, runs up to `batch` items at
 * once, claiming more as places free, until nothing is due; then waits for a poke or the next
 * poll. Every process
 * may run one: the lease keeps two from taking the same item, and a restart loses nothing,
 * because the queue is the store. Serves the outbox and the deadline scheduler.
 */
export class LeasedWork<T> {
  readonly owner: string;
  private timer: NodeJS.Timeout | undefined;
  private wake: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Items running now, by key, each until its run settles. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Items claimed ahead (claimAhead), leased to this worker, in claim order, waiting for a place. */
  private readonly waiting: T[] = [];

  constructor(private readonly options: LeasedWorkOptions<T>) {
    this.owner = `${options.name}-${randomUUID()}`;
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.poke(), this.options.pollMs);
    this.timer.unref();
    this.poke();
  }

  /** Looks for due work now (after a write queued some). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((e: unknown) => this.options.onError?.(e))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.wake);
    this.again = false;
    await this.running;
    // What was claimed ahead is run too: left leased, it would wait out its lease before another process took it.
    for (const item of this.waiting.splice(0)) this.launch(item, this.options.onError);
    await Promise.all(this.inFlight.values());
  }

  /** Sets a timer for the next item when it falls due before the next poll would find it. */
  private async wakeForNext(clock: () => number): Promise<void> {
    const next = await this.options.next?.();
    const wait = next === undefined ? Infinity : next - clock();
    if (wait <= 0 || wait >= this.options.pollMs || this.stopped) return; // due now means leased elsewhere: the poll retries
    clearTimeout(this.wake);
    this.wake = setTimeout(() => this.poke(), wait);
    this.wake.unref();
  }

  private async drain(): Promise<void> {
    const { claim, onError, batch } = this.options;
    const clock = this.options.clock ?? Date.now;
    while (!this.stopped) {
      if (this.inFlight.size >= batch) {
        await Promise.race(this.inFlight.values());
        continue;
      }
      // Places free up in the turn that committed the last runs: claiming and starting the next
      // ones in a turn of their own keeps that commit and their reads from adding up to one long stall.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.waiting.length === 0) {
        const now = clock();
        const limit = batch * (this.options.claimAhead ?? 1) - this.inFlight.size;
        const due = await claim(this.owner, now, now + this.options.leaseMs, limit);
        if (due.length === 0) return this.wakeForNext(clock);
        this.waiting.push(...due);
      }
      for (const item of this.waiting.splice(0, batch - this.inFlight.size)) this.launch(item, onError);
    }
  }

  /** Runs one item in its own place; when it is done, what it made due (a channel's next delivery) is looked for. */
  private launch(item: T, onError: ((error: unknown) => void) | undefined): void {
    const key = this.options.key(item);
    if (this.inFlight.has(key)) return; // still running here: the claim only renewed its lease
    this.options.lag?.report((this.options.clock ?? Date.now)() - this.options.lag.dueAt(item));
    const running: Promise<void> = this.options
      .run(item, this.owner)
      .catch((e: unknown) => onError?.(e))
      .finally(() => {
        this.inFlight.delete(key);
        this.poke();
      });
    this.inFlight.set(key, running);
  }
}
