import type { Delivery, DeliveryOutcome, Store } from '../store/store.js';
import { LeasedWork } from '../scheduler/leased-work.js';
import { safeSend, TargetRefused, type TargetPolicy } from './safe-client.js';
import type { Signer } from './signing.js';

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
  /** Told of every finished attempt, with what the destination answered. */
  onAttempt?: (delivery: Delivery, response: Buffer | undefined) => Promise<void>;
  /** Told of an attempt that failed outside the delivery itself (the store, say); it is retried when its lease ends. */
  onError?: (error: unknown) => void;
  /** Told how late each delivery went out (ms past its due time), for the scheduler-lag metric. */
  onLag?: (lateMs: number) => void;
}

/** 1 min, 5 min, 30 min, 2 h, 6 h. */
export const DEFAULT_RETRIES = [60, 300, 1800, 7200, 21600] as const;

/**
 * Sends what task writes queued: each delivery is leased from the store, POSTed through the
 * SSRF-safe client, signed, with the same Idempotency-Key on every attempt, and its outcome
 * written back by the lease holder only. Failures wait on a capped schedule with jitter; a
 * restart loses nothing, because the queue is the store.
 */
export class Outbox {
  private readonly work: LeasedWork<Delivery>;

  constructor(
    private readonly store: Store,
    private readonly signer: Signer,
    private readonly options: OutboxOptions,
    private readonly clock: () => number = Date.now,
  ) {
    this.work = new LeasedWork({
      name: 'outbox',
      claim: (owner, now, until, limit) => store.claimDeliveries(owner, now, until, limit),
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
    this.work.start();
  }

  /** Looks for due deliveries now (after a write queued some). */
  poke(): void {
    this.work.poke();
  }

  stop(): Promise<void> {
    return this.work.stop();
  }

  /** Deliveries still waiting to go out, on every process (the backlog metric). */
  backlog(): Promise<number> {
    return this.store.pendingDeliveries();
  }

  private async attempt(delivery: Delivery, owner: string): Promise<void> {
    let status: number | undefined;
    let error: string | undefined;
    let refused = false;
    let response: Buffer | undefined;
    try {
      const signature = await this.signer.signDetached(delivery.body);
      const live = (await this.options.headersFor?.(delivery)) ?? {};
      const headers = Object.assign({}, delivery.headers, live, { 'idempotency-key': delivery.id, 'muster-signature': signature });
      const answer = await safeSend({ url: delivery.url, method: 'POST', headers, body: delivery.body }, this.options.policy);
      status = answer.status;
      response = answer.body;
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (e) {
      error = (e as Error).message;
      refused = e instanceof TargetRefused; // a URL the rules refuse stays refused: no retry
    }
    const outcome = this.outcome(delivery, status, error, refused);
    if (!(await this.store.finishDelivery(delivery.id, owner, outcome))) return; // our lease was lost: someone else owns it now
    await this.options.onAttempt?.(Object.assign({}, delivery, outcome), response).catch(() => {});
  }

  private outcome(delivery: Delivery, status: number | undefined, error: string | undefined, final: boolean): DeliveryOutcome {
    const now = this.clock();
    const attempts = delivery.attempts + 1;
    const next = (state: DeliveryOutcome['state'], nextAt: number): DeliveryOutcome => {
      const outcome: DeliveryOutcome = { state, attempts, nextAt, lastAttemptAt: now };
      if (status !== undefined) outcome.lastStatus = status;
      if (error) outcome.lastError = error.slice(0, 500);
      return outcome;
    };
    if (!error) return next('delivered', now);
    const wait = final ? undefined : this.options.retries[attempts - 1];
    if (wait === undefined) return next('failed', now);
    const jitter = 0.9 + Math.random() * 0.2; // spread retries so a recovering receiver is not hit all at once
    return next('pending', now + Math.round(wait * 1000 * jitter));
  }
}
