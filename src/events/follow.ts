import { isTerminal } from '../a2a/states.js';
import type { StreamResponse } from '../a2a/types.js';
import { UNNUMBERED, type LoggedEvent, type Store } from '../store/store.js';
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

/** True for the event that ends a task's stream: a status update into a terminal state. */
export const endsStream = (event: StreamResponse): boolean =>
  'statusUpdate' in event && isTerminal(event.statusUpdate.status.state);

/** A numbered log follow() reads: a task's events (the store itself), or an agent's inbox. */
export interface EventLog<E> {
  readonly exclusive: boolean;
  eventsAfter(key: string, afterSeq: number, limit: number): Promise<{ seq: number; event: E }[]>;
}

/**
 * A task's events after `afterSeq`, stored ones first and then live ones, in order, with no gap
 * and no duplicate. It reads the log to catch up; once caught up it takes the events that
 * wake-ups carry (shared by every subscriber of the task), and reads the log again only when it
 * finds a gap, or (on a shared store) after a quiet while. It stops after a terminal status
 * update, or when `signal` aborts.
 */
export function follow(
  store: Pick<Store, 'exclusive' | 'eventsAfter'>,
  wakeups: Wakeups,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<LoggedEvent> {
  return followLog(store, wakeups, taskId, afterSeq, signal, endsStream);
}

/**
 * Any numbered log announced on the store's events under `key` (a task's, an inbox's), read as
 * follow() reads a task's: stored events, then live ones, no gap, no duplicate, until `ends`
 * holds for one or `signal` aborts.
 */
export async function* followLog<E>(
  store: EventLog<E>,
  wakeups: Wakeups,
  key: string,
  afterSeq: number,
  signal: AbortSignal,
  ends: (event: E) => boolean,
): AsyncGenerator<{ seq: number; event: E }> {
  let cursor = afterSeq;
  let known = afterSeq; // the highest seq a wake-up has announced
  let behind = true; // read the log until a short page says we are caught up
  let poked = false; // an UNNUMBERED commit was announced since the last read began
  let live: { seq: number; event: E }[] = [];
  let wake: (() => void) | undefined;
  const unwatch = wakeups.watch(key, (lastSeq, events) => {
    if (lastSeq === UNNUMBERED) poked = true; // new events whose numbers the log gives when read (store/inbox.ts)
    known = Math.max(known, lastSeq);
    if (live.length + events.length > LIVE_LIMIT) {
      live = [];
      behind = true;
    } else live.push(...(events as readonly { seq: number; event: unknown }[] as { seq: number; event: E }[])); // a key's announcements carry its own log's events
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    while (!signal.aborted) {
      if (behind || poked) {
        poked = false;
        const page = await store.eventsAfter(key, cursor, PAGE);
        for (const logged of page) {
          cursor = logged.seq;
          yield logged;
          if (ends(logged.event)) return;
        }
        behind = page.length === PAGE;
        continue;
      }
      while (live[0] && live[0].seq <= cursor) live.shift();
      const next = live[0];
      if (next && next.seq === cursor + 1) {
        live.shift();
        cursor = next.seq;
        yield next;
        if (ends(next.event)) return;
        continue;
      }
      if (known > cursor) {
        behind = true; // a gap: something was announced that we do not hold
        continue;
      }
      const recheck = await new Promise<boolean>((resolve) => {
        const timer = store.exclusive ? undefined : setTimeout(() => resolve(true), SHARED_RECHECK_MS);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
        if (known > cursor || poked || signal.aborted) wake();
      });
      wake = undefined;
      if (recheck) behind = true;
    }
  } finally {
    unwatch();
    signal.removeEventListener('abort', onAbort);
  }
}
