import { randomUUID } from 'node:crypto';

export interface LeasedWorkOptions<T> {
  /** A name for the owner ids this worker leases under ("outbox", "deadlines"). */
  name: string;
  /** Leases up to `limit` items due at `now` to `owner` until `leaseUntil` (a store call). */
  claim: (owner: string, now: number, leaseUntil: number, limit: number) => Promise<T[]>;
  /** Does one item; a failure leaves it leased until the lease runs out, then it is claimed again. */
  run: (item: T, owner: string) => Promise<void>;
  /** How long a claimed item stays ours: longer than one run can take. */
  leaseMs: number;
  batch: number;
  /** How often due work is looked for when nothing pokes the worker. */
  pollMs: number;
  /** When the next item falls due, if the store knows: the worker wakes then rather than at the next poll. */
  next?: () => Promise<number | undefined>;
  /** Told how late each claimed item is (ms past the time it fell due), for the scheduler-lag metric. */
  lag?: { dueAt: (item: T) => number; report: (lateMs: number) => void };
  onError?: (error: unknown) => void;
  clock?: () => number;
}

/**
 * Drains work kept in the store: claims what is due with a lease, runs a batch at once, and
 * claims again until nothing is due; then waits for a poke or the next poll. Every process
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
    const { claim, run, onError, lag } = this.options;
    const clock = this.options.clock ?? Date.now;
    while (!this.stopped) {
      const now = clock();
      const due = await claim(this.owner, now, now + this.options.leaseMs, this.options.batch);
      if (due.length === 0) return this.wakeForNext(clock);
      if (lag) for (const item of due) lag.report(now - lag.dueAt(item));
      await Promise.all(due.map((item) => run(item, this.owner).catch((e: unknown) => onError?.(e))));
    }
  }
}
