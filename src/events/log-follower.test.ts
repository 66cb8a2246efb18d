import { describe, expect, it } from 'vitest';
import { EventBus } from '../store/events.js';
import type { EventLog } from './log-follower.js';
import { followLog } from './follow.js';
import { Wakeups } from './wakeups.js';

/** A log held in memory, as exclusive as SQLite's: every commit is announced here. */
class MemoryLog implements EventLog<string> {
  readonly exclusive = true;
  readonly entries: { seq: number; event: string }[] = [];

  async eventsAfter(_key: string, afterSeq: number, limit: number) {
    return this.entries.filter((e) => e.seq > afterSeq).slice(0, limit);
  }
}

const never = () => false;

describe('LogFollower and its signal', () => {
  it('ends at once when the signal aborted before the follow began', async () => {
    const log = new MemoryLog();
    log.entries.push({ seq: 1, event: 'a' });
    const abort = new AbortController();
    abort.abort();
    const follower = followLog(log, new Wakeups(new EventBus()), 'k', 0, abort.signal, never);
    expect(await follower.next()).toEqual({ done: true, value: undefined });
  });

  it('answers a waiting next() with the end when the signal aborts, and stops listening', async () => {
    const log = new MemoryLog();
    const wakeups = new Wakeups(new EventBus());
    const abort = new AbortController();
    const follower = followLog(log, wakeups, 'k', 0, abort.signal, never);
    const waiting = follower.next();
    await new Promise((r) => setImmediate(r)); // the first read of the log is done: it waits for a wake-up
    expect(wakeups.size).toBe(1);
    abort.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(wakeups.size).toBe(0);
  });

  it('takes announced events in order until the signal aborts, then takes no more', async () => {
    const log = new MemoryLog();
    const wakeups = new Wakeups(new EventBus());
    const abort = new AbortController();
    const follower = followLog(log, wakeups, 'k', 0, abort.signal, never);
    const first = follower.next();
    await new Promise((r) => setImmediate(r));
    for (const seq of [1, 2]) log.entries.push({ seq, event: `e${seq}` });
    wakeups.wake('k', 2, log.entries as never); // a wake-up carries any log's events
    expect((await first).value).toEqual({ seq: 1, event: 'e1' });
    abort.abort();
    expect(await follower.next()).toEqual({ done: true, value: undefined });
  });
});
