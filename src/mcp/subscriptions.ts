/**
 * Resource subscriptions (resources/subscribe): while a client is subscribed to a resource, the
 * door follows it and sends notifications/resources/updated when it changes. A task is followed on
 * its event log, with the REST wait (GET /api/tasks/{id}/wait) in a loop, so a change written
 * through any node notifies; a board or a space, which have no log of their own, is read again
 * every few seconds and notifies when what the caller sees differs. Unsubscribing, or the
 * connection's end, stops the following: nothing is left running.
 */
import { createHash } from 'node:crypto';
import { isTerminal } from '../a2a/states.js';
import type { Task } from '../a2a/types.js';
import { path, request, type Target } from '../client/http.js';
import { mayPass, UsageError } from '../client/errors.js';
import { TASK_WAIT } from '../wire/limits.js';
import { readResource, resourceOf } from './resources.js';

/** Resources one connection may follow at once (a task's wait also holds one of the caller's stream slots). */
const MAX_SUBSCRIPTIONS = 50;
/** How often a board or a space is read again. */
const READ_AGAIN_MS = 5_000;
/** Waits before following again after a failure that may pass (the hub unreachable, busy). */
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

interface Waited {
  task: Task;
  lastSeq: number;
  changed: boolean;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export class Subscriptions {
  private readonly following = new Map<string, AbortController>();

  constructor(
    private readonly target: Target,
    private readonly updated: (uri: string) => Promise<void>,
  ) {}

  /** Starts following `uri` once it has been read (a resource the caller may not read is refused here). */
  async subscribe(uri: string): Promise<void> {
    const resource = resourceOf(uri);
    if (this.following.size >= MAX_SUBSCRIPTIONS && !this.following.has(uri)) {
      throw new UsageError(
        `A connection follows at most ${MAX_SUBSCRIPTIONS} resources`,
        'Unsubscribe from one you no longer need first',
      );
    }
    const abort = new AbortController();
    const start =
      resource.kind === 'task'
        ? await this.waitOnTask(resource.key, undefined, 0, abort.signal)
        : this.digest(await readResource(this.target, resource, abort.signal));
    this.following.get(uri)?.abort();
    this.following.set(uri, abort);
    const follow =
      resource.kind === 'task'
        ? this.followTask(uri, resource.key, start as Waited, abort.signal)
        : this.followByReading(uri, start as string, abort.signal);
    void follow.finally(() => this.following.get(uri) === abort && this.following.delete(uri));
  }

  unsubscribe(uri: string): void {
    this.following.get(uri)?.abort();
    this.following.delete(uri);
  }

  /** Stops everything (the connection ended). */
  closeAll(): void {
    for (const abort of this.following.values()) abort.abort();
    this.following.clear();
  }

  private waitOnTask(
    id: string,
    afterSeq: number | undefined,
    timeoutSeconds: number,
    signal: AbortSignal,
  ): Promise<Waited> {
    return request(this.target, `${path('api', 'tasks', id)}/wait`, {
      query: { afterSeq, timeoutSeconds },
      signal,
    }) as Promise<Waited>;
  }

  private digest(body: unknown): string {
    return createHash('sha256').update(JSON.stringify(body)).digest('hex');
  }

  /** Runs `step` until the signal ends it or it says it is done; a failure that may pass is retried with backoff, any other ends it. */
  private async loop(signal: AbortSignal, step: () => Promise<boolean>): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (await step()) return;
        failures = 0;
      } catch (failure) {
        if (signal.aborted || !mayPass(failure)) return;
        await sleep(RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!, signal);
      }
    }
  }

  private followTask(uri: string, id: string, start: Waited, signal: AbortSignal): Promise<void> {
    let afterSeq = start.lastSeq;
    let final = isTerminal(start.task.status.state);
    return this.loop(signal, async () => {
      if (final) return true; // a final task changes no more
      const waited = await this.waitOnTask(id, afterSeq, TASK_WAIT.maxSeconds, signal);
      afterSeq = waited.lastSeq;
      final = isTerminal(waited.task.status.state);
      if (waited.changed && !signal.aborted) await this.updated(uri);
      return false;
    });
  }

  private followByReading(uri: string, start: string, signal: AbortSignal): Promise<void> {
    let seen = start;
    const resource = resourceOf(uri);
    return this.loop(signal, async () => {
      await sleep(READ_AGAIN_MS, signal);
      if (signal.aborted) return true;
      const now = this.digest(await readResource(this.target, resource, signal));
      if (now !== seen && !signal.aborted) await this.updated(uri);
      seen = now;
      return false;
    });
  }
}
