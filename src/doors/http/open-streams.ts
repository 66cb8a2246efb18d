/**
 * The event streams this process holds open, on every binding (JSON-RPC SSE, HTTP+JSON SSE,
 * gRPC server streams, the live inbox): each caller's slots, the end of every stream when the hub stops, and the
 * end of a stream when the token that opened it is rotated or revoked (a stream lives no longer
 * than its token).
 */
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import { tokenOf, type Caller } from '../../identity/caller.js';
import type { Logger } from '../../observability/logger.js';
import type { HubMetrics } from '../../observability/metrics.js';

/**
 * Why a stream was ended when its caller's tokens changed, the reason its AbortController carries
 * (always a HubError), for a door that still answers after the end (the task wait) to refuse with.
 */
const tokenGone = () =>
  new HubError('UNAUTHENTICATED', 'The token this was opened with has been rotated or revoked', {
    hint: 'Open it again with your current token',
  });
const tokenUnknown = () =>
  new HubError('UNAVAILABLE', 'Whether the token this was opened with is still live could not be checked', {
    hint: 'Open it again in a moment',
  });

/** Counts each caller's open streams on this process. */
class StreamSlots {
  private readonly open = new Map<string, number>();
  constructor(private readonly limit: number) {}

  take(who: string): () => void {
    const held = this.open.get(who) ?? 0;
    if (held >= this.limit) {
      throw new HubError('RATE_LIMITED', `At most ${this.limit} open streams per caller`, {
        hint: 'Close a stream first, or poll with ListTasks',
      });
    }
    this.open.set(who, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(who) ?? 1) - 1;
      if (left > 0) this.open.set(who, left);
      else this.open.delete(who);
    };
  }
}

export class OpenStreams {
  private readonly all = new Set<AbortController>();
  /** Each caller's streams, with the caller that opened each (its token is asked about when the caller's tokens change). */
  private readonly byCaller = new Map<string, Map<AbortController, Caller | undefined>>();
  private readonly slots: StreamSlots;

  constructor(
    private readonly hub: Hub,
    maxPerCaller: number,
    private readonly metrics: Pick<HubMetrics, 'streamOpened' | 'streamClosed'>,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.slots = new StreamSlots(maxPerCaller);
    hub.authentication.onTokensChanged((handle) => void this.endWithoutLiveToken(handle));
  }

  /**
   * Ends those of `handle`'s streams whose token is no longer live, asking the store once per token
   * however many streams it opened; when the store cannot answer, ends them too (and says so).
   */
  private async endWithoutLiveToken(handle: string): Promise<void> {
    const held = this.byCaller.get(handle);
    if (!held) return;
    const asked = new Map<string, Promise<HubError | undefined>>();
    const ending = (caller: Caller | undefined): Promise<HubError | undefined> => {
      const hash = caller && tokenOf(caller)?.hash;
      if (!caller || hash === undefined) return Promise.resolve(tokenGone());
      const answer =
        asked.get(hash) ??
        this.hub.authentication.holdsLiveToken(caller).then(
          (live) => (live ? undefined : tokenGone()),
          (e: unknown) => {
            this.logger.warn({ err: e }, `checking the token of ${handle}'s open streams failed; they were ended`);
            return tokenUnknown();
          },
        );
      asked.set(hash, answer);
      return answer;
    };
    await Promise.all(
      [...held].map(async ([stream, caller]) => {
        const reason = await ending(caller);
        if (reason) stream.abort(reason);
      }),
    );
  }

  /** Takes one of `who`'s slots; answers its release. */
  reserve(who: string): () => void {
    return this.slots.take(who);
  }

  /** Holds a stream that `abort` ends, opened by `caller` (none: an anonymous feed); answers what to call once it has ended. */
  hold(who: string, abort: AbortController, caller?: Caller): () => void {
    this.all.add(abort);
    this.metrics.streamOpened();
    const own = this.byCaller.get(who) ?? new Map<AbortController, Caller | undefined>();
    this.byCaller.set(who, own.set(abort, caller));
    return () => {
      this.all.delete(abort);
      this.metrics.streamClosed();
      own.delete(abort);
      if (own.size === 0) this.byCaller.delete(who);
    };
  }

  /** Ends every open stream (the hub is stopping). */
  endAll(): void {
    this.all.forEach((s) => s.abort());
  }
}
