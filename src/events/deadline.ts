/**
 * Runs `wait` with a signal that fires after `ms`, or when `other` fires, and clears its timer
 * when the wait ends. Not `AbortSignal.any([AbortSignal.timeout(ms), other])`: on Node 20 that
 * combination can lose its timeout once the garbage collector runs, and the wait never ends.
 */
export async function withDeadline<T>(
  ms: number,
  other: AbortSignal | undefined,
  wait: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const stop = () => controller.abort();
  other?.addEventListener('abort', stop, { once: true });
  if (other?.aborted) controller.abort();
  try {
    return await wait(controller.signal);
  } finally {
    clearTimeout(timer);
    other?.removeEventListener('abort', stop);
  }
}
