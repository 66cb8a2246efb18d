import type { Writable } from 'node:stream';

/** Resolves true when the stream drains, false after `ms` or on abort; leaves no listener or timer behind. */
export function drained(res: Pick<Writable, 'once' | 'off'>, ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = () => finish(true);
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), ms);
    res.once('drain', onDrain);
    signal.addEventListener('abort', onAbort);
  });
}
