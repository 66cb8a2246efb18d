/**
 * Push configs, the delivery outbox and the hub's signing keys. Deliveries are written in the
 * transaction of the task write whose events they carry. A store promises that a delivery is
 * leased to one owner at a time, that each channel's deliveries are leased in event order (one
 * at a time), and that only the lease holder records an attempt; the first signing key stored
 * is the one every process signs with.
 */

export interface PushConfig {
  taskId: string;
  id: string;
  /** Handle of the agent (or `(admin)`) that registered it; only they read or delete it. */
  owner: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
  /** Set through a 0.3 method: its deliveries are the task itself in 0.3 shape. Absent: 1.0 events. */
  protocol?: '0.3';
  createdAt: number;
}

/** One event on its way to one destination; `channel` names the destination within the task. */
export interface DeliveryDraft {
  /** Also the Idempotency-Key of every attempt. */
  id: string;
  taskId: string;
  channel: string;
  seq: number;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A new task's copy for its target's own endpoint. The store writes it with the task only while
 * the target forwards, to the endpoint URL the target's record holds at that moment: the decision
 * is made in the write's own transaction, so it never races a switch of forwarding.
 */
export interface ForwardDraft extends Omit<DeliveryDraft, 'url'> {
  /** The agent whose verified endpoint the copy goes to. */
  to: string;
}

/** A new task's forward, drafted only when the store finds its target forwards (most do not, and drafting costs every send). */
export interface LazyForward {
  to: string;
  draft(): ForwardDraft;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'canceled';

export interface Delivery extends DeliveryDraft {
  state: DeliveryState;
  attempts: number;
  nextAt: number;
  lastStatus?: number;
  lastError?: string;
  lastAttemptAt?: number;
  createdAt: number;
}

/** What one attempt changed; written only by the lease holder. */
export interface DeliveryOutcome {
  state: DeliveryState;
  attempts: number;
  nextAt: number;
  lastAttemptAt: number;
  lastStatus?: number;
  lastError?: string;
}

/** The outbox channel of one push config within its task: its deliveries go out in event order. */
export const pushChannel = (configId: string): string => `push:${configId}`;

export interface OutboxStore {
  /**
   * Inserts or updates a config, and nothing when it answers otherwise: 'taken' when the id
   * belongs to another owner, 'full' when the owner holds `maxPerOwner` other configs on the task
   * (counted under a lock, so concurrent puts through several processes cannot pass the cap).
   */
  putPushConfig(config: PushConfig, maxPerOwner: number): Promise<'stored' | 'taken' | 'full'>;
  listPushConfigs(taskId: string): Promise<PushConfig[]>;
  /** Deletes a config and cancels its pending deliveries; false if there was none. */
  deletePushConfig(taskId: string, id: string): Promise<boolean>;
  /**
   * Leases up to `limit` due deliveries to `owner` until `leaseUntil`. A delivery is due only
   * when no earlier event of its channel is still pending, so each channel goes out in order.
   */
  claimDeliveries(owner: string, now: number, leaseUntil: number, limit: number): Promise<Delivery[]>;
  /** Records an attempt, only if `owner` still holds the lease; false otherwise. */
  finishDelivery(id: string, owner: string, outcome: DeliveryOutcome): Promise<boolean>;
  listDeliveries(taskId: string): Promise<Delivery[]>;
  /** How many deliveries are pending (waiting for their first attempt or a retry). */
  pendingDeliveries(): Promise<number>;
}
