import type { Delivery, DeliveryOutcome, OutboxStore } from '../store/store.js';
import { LeasedWork } from '../scheduler/leased-work.js';
import { safeSend, TargetRefused, type TargetPolicy } from './safe-client.js';
import type { RemoteRequest } from './remote/requests.js';
import type { Signer } from './signing.js';

/** What an answer means for its delivery: done, refused for good, worth a retry, or to be made again later (a follow's next read). */
export type Verdict =
  | { kind: 'done' }
  | { kind: 'refused'; reason: string }
  | { kind: 'retry'; reason: string }
  | { kind: 'again'; afterMs: number };

/**
 * A delivery whose request is written when it is sent, and whose answer is read by whoever wrote
 * it (the calls to an agent's own endpoint: hub/forwards.ts). Push deliveries have none.
 */
export interface Conversation {
  request: RemoteRequest;
  maxResponseBytes?: number;
  /** Read the answer as an event stream, for up to `holdMs` (within the lease), handing on each chunk as it comes. */
  stream?: { holdMs: number; onData(chunk: Buffer): void };
  verdict(status: number, body: Buffer): Verdict | Promise<Verdict>;
  /** Told of the attempt's outcome, with the answer, before it is recorded; a failure leaves the delivery to be tried again when its lease ends. */
  answered(delivery: Delivery, status: number | undefined, body: Buffer | undefined): Promise<void>;
}

export interface OutboxOptions {
  /** Seconds to wait before each retry; one attempt plus one retry per entry. */
  retries: readonly number[];
  policy: TargetPolicy;
  /** How long a claimed delivery stays ours: longer than one attempt can take. */
  leaseMs?: number;
  batch?: number;
  /** How often due retries are looked for when nothing pokes the outbox. */
  pollMs?: number;
  /** Headers read at send time (credentials kept with their config, not in the outbox). */
  headersFor?: (delivery: Delivery) => Promise<Record<string, string>>;
  /** Told of every finished attempt. */
  onAttempt?: (delivery: Delivery) => void;
  /** The conversation a delivery belongs to, if any; 'done' when nothing is left to send; it may throw TargetRefused when there is no one left to send to. */
  conversationOf?: (delivery: Delivery) => Promise<Conversation | 'done' | undefined>;
  /** Told of an attempt that failed outside the delivery itself (the store, say); it is retried when its lease ends. */
  onError?: (error: unknown) => void;
  /** Told how late each delivery went out (ms past its due time), for the scheduler-lag metric. */
  onLag?: (lateMs: number) => void;
}

/**
 * Sends what task writes queued: each delivery is leased from the store, POSTed through the
 * SSRF-safe client, signed, with the same Idempotency-Key on every attempt, and its outcome
 * written back by the lease holder only. Failures wait on a capped schedule with jitter; a
 * restart loses nothing, because the queue is the store.
 */
export class Outbox {
  private readonly work: LeasedWork<Delivery>;
  /** Hangs up held streams when the outbox stops, so a shutdown does not wait them out. */
  private stopping = new AbortController();

  constructor(
    private readonly store: OutboxStore,
    private readonly signer: Signer,
    private readonly options: OutboxOptions,
    private readonly clock: () => number = Date.now,
  ) {
    this.work = new LeasedWork({
      name: 'outbox',
      claim: (owner, now, until, limit) => store.claimDeliveries(owner, now, until, limit),
      key: (delivery) => delivery.id,
      run: (delivery, owner) => this.attempt(delivery, owner),
      leaseMs: options.leaseMs ?? 30_000,
      batch: options.batch ?? 32,
      pollMs: options.pollMs ?? 500,
      ...(options.onError ? { onError: options.onError } : {}),
      ...(options.onLag ? { lag: { dueAt: (delivery: Delivery) => delivery.nextAt, report: options.onLag } } : {}),
      clock,
    });
  }

  start(): void {
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.work.start();
  }

  /** Looks for due deliveries now (after a write queued some). */
  poke(): void {
    this.work.poke();
  }

  stop(): Promise<void> {
    this.stopping.abort();
    return this.work.stop();
  }

  /** Deliveries still waiting to go out, on every process (the backlog metric). */
  backlog(): Promise<number> {
    return this.store.pendingDeliveries();
  }

  private async attempt(delivery: Delivery, owner: string): Promise<void> {
    let status: number | undefined;
    let verdict: Verdict;
    let response: Buffer | undefined;
    let conversation: Conversation | undefined;
    try {
      const found = await this.options.conversationOf?.(delivery);
      if (found === 'done')
        return void (await this.store.finishDelivery(
          delivery.id,
          owner,
          this.outcome(delivery, undefined, { kind: 'done' }),
        ));
      conversation = found;
      const request = conversation?.request ?? {
        url: delivery.url,
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
      };
      const signature =
        request.body === undefined ? {} : { 'muster-signature': await this.signer.signDetached(request.body) };
      const live = (await this.options.headersFor?.(delivery)) ?? {};
      const headers = Object.assign({}, request.headers, live, { 'idempotency-key': delivery.id }, signature);
      const policy = this.policyFor(conversation);
      const answer = await safeSend(
        {
          url: request.url,
          method: request.method,
          headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        },
        policy,
      );
      status = answer.status;
      response = answer.body;
      verdict = conversation
        ? await conversation.verdict(status, response)
        : status >= 200 && status < 300
          ? { kind: 'done' }
          : { kind: 'retry', reason: `HTTP ${status}` };
    } catch (e) {
      // A URL the rules refuse stays refused: no retry.
      verdict = { kind: e instanceof TargetRefused ? 'refused' : 'retry', reason: (e as Error).message };
    }
    const outcome = this.outcome(delivery, status, verdict);
    const done = Object.assign({}, delivery, outcome);
    // The answer is written before the delivery is finished, so the channel's next call (a cancel
    // waiting behind a forward) finds what it named; a write that fails leaves the delivery to its lease.
    if (
      conversation &&
      !(await conversation.answered(done, status, response).then(
        () => true,
        (e: unknown) => void this.options.onError?.(e),
      ))
    )
      return;
    if (!(await this.store.finishDelivery(delivery.id, owner, outcome))) return; // our lease was lost: someone else owns it now
    this.options.onAttempt?.(done);
  }

  private policyFor(conversation: Conversation | undefined) {
    if (!conversation) return this.options.policy;
    const { maxResponseBytes, stream } = conversation;
    const held = stream && { until: this.clock() + stream.holdMs, onData: stream.onData, signal: this.stopping.signal };
    return Object.assign(
      {},
      this.options.policy,
      maxResponseBytes ? { maxResponseBytes } : {},
      held ? { stream: held } : {},
    );
  }

  private outcome(delivery: Delivery, status: number | undefined, verdict: Verdict): DeliveryOutcome {
    const now = this.clock();
    const attempts = delivery.attempts + 1;
    const next = (state: DeliveryOutcome['state'], nextAt: number, error?: string): DeliveryOutcome => {
      const outcome: DeliveryOutcome = { state, attempts, nextAt, lastAttemptAt: now };
      if (status !== undefined) outcome.lastStatus = status;
      if (error) outcome.lastError = error.slice(0, 500);
      return outcome;
    };
    switch (verdict.kind) {
      case 'done':
        return next('delivered', now);
      case 'again':
        return Object.assign(next('pending', now + verdict.afterMs), { attempts: 0 }); // attempts count failures in a row
      case 'refused':
        return next('failed', now, verdict.reason);
      case 'retry': {
        const wait = this.options.retries[attempts - 1];
        if (wait === undefined) return next('failed', now, verdict.reason);
        const jitter = 0.9 + Math.random() * 0.2; // spread retries so a recovering receiver is not hit all at once
        return next('pending', now + Math.round(wait * 1000 * jitter), verdict.reason);
      }
    }
  }
}
