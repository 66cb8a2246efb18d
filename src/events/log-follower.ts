/**
 * The iterator followLog answers (events/follow.ts says what it reads, and when). A caught-up
 * follower waits with one promise, which the wake-up resolves with the next event it may see:
 * one promise per event and subscriber, where a generator inside a generator took several, and a
 * few small methods for V8 to compile while a fresh hub's first fan-outs run, where it compiled
 * two async generators (docs/performance-history.md).
 */
import { UNNUMBERED } from '../store/store.js';
import type { Wakeups } from './wakeups.js';

const PAGE = 100;
/** Events a subscriber may hold from wake-ups before it falls back to reading the log. */
const LIVE_LIMIT = 1_000;
/**
 * On a store shared with other processes, how long an idle subscriber waits before it reads the
 * log anyway: an announcement from another process can be lost (it died between its commit and
 * its notice), and the log is the truth. An exclusive store announces every commit in process.
 */
const SHARED_RECHECK_MS = 5_000;

/** A numbered log a follower reads: a task's events (the store itself), or an agent's inbox. */
export interface EventLog<E> {
  readonly exclusive: boolean;
  eventsAfter(key: string, afterSeq: number, limit: number): Promise<{ seq: number; event: E }[]>;
}

export interface Logged<E> {
  seq: number;
  event: E;
}
type Result<E> = IteratorResult<Logged<E>, undefined>;
type Step<E> = Result<E> | Promise<Result<E>>;
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

export class LogFollower<E> implements AsyncIterableIterator<Logged<E>, undefined> {
  private cursor: number;
  private known: number; // the highest seq a wake-up has announced
  private behind = true; // read the log until a short page says we are caught up
  private poked = false; // an UNNUMBERED commit was announced since the last read began
  private live: Logged<E>[] = [];
  private page: Logged<E>[] = []; // the last page read from the log; taken from `taken` on
  private taken = 0;
  private ended = false;
  /** The signal's abort, as heard by its listener: read for every event, where `signal.aborted` is a checked getter. */
  private aborted: boolean;
  private waiting: ((step: Step<E>) => void) | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private readonly unwatch: () => void;

  constructor(
    private readonly log: EventLog<E>,
    wakeups: Wakeups,
    private readonly key: string,
    afterSeq: number,
    private readonly signal: AbortSignal,
    private readonly ends: (event: E) => boolean,
    private readonly shown: (event: E) => E | undefined,
  ) {
    this.cursor = this.known = afterSeq;
    this.aborted = signal.aborted;
    this.unwatch = wakeups.watch(key, (lastSeq, events) => this.heard(lastSeq, events as readonly Logged<unknown>[]));
    signal.addEventListener('abort', this.stopped);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<Result<E>> {
    const step = this.step();
    return step === undefined ? new Promise((resolve) => this.wait(resolve)) : Promise.resolve(step);
  }

  return(): Promise<Result<E>> {
    this.end();
    this.waiting?.(DONE);
    this.waiting = undefined;
    return Promise.resolve(DONE);
  }

  /**
   * What next() answers now: the next event the caller may see, the end, a read of the log (behind,
   * poked, or a gap in what wake-ups brought), or undefined when it must wait for a wake-up.
   */
  private step(): Step<E> | undefined {
    for (;;) {
      if (this.ended || this.aborted) return this.end();
      let logged = this.page[this.taken];
      if (logged) this.taken++;
      else if (this.behind || this.poked) return this.read();
      else {
        while (this.live[0] && this.live[0].seq <= this.cursor) this.live.shift();
        if (this.live[0]?.seq !== this.cursor + 1) {
          if (this.known <= this.cursor) return undefined;
          this.behind = true; // a gap: something was announced that we do not hold
          continue;
        }
        logged = this.live.shift()!;
      }
      this.cursor = logged.seq;
      if (this.ends(logged.event)) this.end();
      const event = this.shown(logged.event);
      if (event === logged.event) return { done: false, value: logged };
      if (event !== undefined) return { done: false, value: { seq: logged.seq, event } };
    }
  }

  private async read(): Promise<Result<E>> {
    this.poked = false;
    try {
      this.page = await this.log.eventsAfter(this.key, this.cursor, PAGE);
    } catch (error) {
      this.end();
      throw error;
    }
    this.taken = 0;
    this.behind = this.page.length === PAGE;
    return this.step() ?? new Promise((resolve) => this.wait(resolve));
  }

  private wait(resolve: (step: Step<E>) => void): void {
    this.waiting = resolve;
    if (!this.log.exclusive) this.recheck = setTimeout(this.quiet, SHARED_RECHECK_MS);
  }

  private heard(lastSeq: number, events: readonly Logged<unknown>[]): void {
    if (lastSeq === UNNUMBERED) this.poked = true; // new events whose numbers the log gives when read (store/inbox.ts)
    if (lastSeq > this.known) this.known = lastSeq;
    if (this.live.length + events.length > LIVE_LIMIT) {
      this.live = [];
      this.behind = true;
    } else for (const logged of events) this.live.push(logged as Logged<E>); // a key's announcements carry its own log's events
    this.stirred();
  }

  /** Answers a waiting next() when there is something to answer: a wake-up, an abort, a quiet while. */
  private readonly stirred = (): void => {
    if (!this.waiting) return;
    const step = this.step();
    if (step === undefined) return;
    const resolve = this.waiting;
    this.waiting = undefined;
    if (this.recheck) clearTimeout(this.recheck); // none on an exclusive store: no call per event and subscriber
    resolve(step);
  };

  private readonly stopped = (): void => {
    this.aborted = true;
    this.stirred();
  };

  private readonly quiet = (): void => {
    this.behind = true;
    this.stirred();
  };

  private end(): IteratorReturnResult<undefined> {
    if (this.ended) return DONE;
    this.ended = true;
    this.unwatch();
    this.signal.removeEventListener('abort', this.stopped);
    clearTimeout(this.recheck);
    this.live = [];
    this.page = [];
    return DONE;
  }
}
