import { isTerminal } from '../a2a/states.js';
import type { StreamResponse } from '../a2a/types.js';
import type { LoggedEvent, Store } from '../store/store.js';
import type { Wakeups } from './wakeups.js';

const PAGE = 100;

/** True for the event that ends a task's stream: a status update into a terminal state. */
export const endsStream = (event: StreamResponse): boolean => 'statusUpdate' in event && isTerminal(event.statusUpdate.status.state);

/**
 * A task's events after `afterSeq`, stored ones first and then live ones, in order, with no gap
 * and no duplicate: it reads the log, and when it has read everything it sleeps until a wake-up
 * says the log has grown. It stops after a terminal status update, or when `signal` aborts.
 */
export async function* follow(store: Store, wakeups: Wakeups, taskId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<LoggedEvent> {
  let cursor = afterSeq;
  let known = afterSeq; // the highest seq a wake-up has announced
  let wake: (() => void) | undefined;
  const unwatch = wakeups.watch(taskId, (lastSeq) => {
    known = Math.max(known, lastSeq);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    while (!signal.aborted) {
      const page = await store.eventsAfter(taskId, cursor, PAGE);
      for (const logged of page) {
        cursor = logged.seq;
        yield logged;
        if (endsStream(logged.event)) return;
      }
      if (page.length === PAGE || known > cursor) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (known > cursor || signal.aborted) resolve();
      });
      wake = undefined;
    }
  } finally {
    unwatch();
    signal.removeEventListener('abort', onAbort);
  }
}
