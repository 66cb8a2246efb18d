import { isTerminal } from '../a2a/states.js';
import type { StreamResponse } from '../a2a/types.js';
import type { LoggedEvent, Store } from '../store/store.js';
import { LogFollower, type EventLog } from './log-follower.js';
import type { Wakeups } from './wakeups.js';

/** True for the event that ends a task's stream: a status update into a terminal state. */
export const endsStream = (event: StreamResponse): boolean =>
  'statusUpdate' in event && isTerminal(event.statusUpdate.status.state);

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
): AsyncIterableIterator<LoggedEvent, undefined> {
  return followLog(store, wakeups, taskId, afterSeq, signal, endsStream);
}

/**
 * Any numbered log announced on the store's events under `key` (a task's, an inbox's), read as
 * follow() reads a task's: stored events, then live ones, no gap, no duplicate, until `ends`
 * holds for one or `signal` aborts. Each event is answered as `shown` maps it (the view), or
 * passed over when `shown` answers undefined.
 */
export function followLog<E>(
  store: EventLog<E>,
  wakeups: Wakeups,
  key: string,
  afterSeq: number,
  signal: AbortSignal,
  ends: (event: E) => boolean,
  shown: (event: E) => E | undefined = (event) => event,
): AsyncIterableIterator<{ seq: number; event: E }, undefined> {
  return new LogFollower(store, wakeups, key, afterSeq, signal, ends, shown);
}
