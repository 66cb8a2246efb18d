/**
 * The store contract. Every implementation (SQLite now, PostgreSQL later) passes the same
 * suite (src/store/store.suite.ts). It is async so a networked database can stand behind it.
 * A task write carries its events, idempotency receipt and quota charges, and the store
 * applies all of them in one transaction or none of them.
 */
import type { Artifact, JsonObject, Message, StreamResponse, TaskState } from '../a2a/types.js';

export interface AgentRecord {
  handle: string;
  name?: string;
  description?: string;
  /** The agent's own A2A base URL, if it has one. */
  endpoint?: string;
  /** The 1.0 JSON-RPC URL found in the endpoint's card when the agent proved it controls it. */
  endpointRpcUrl?: string;
  endpointVerifiedAt?: number;
  /** New direct tasks are also sent to the verified endpoint. */
  forwarding?: boolean;
  createdAt: number;
}

export interface EndpointChallenge {
  challenge: string;
  endpoint: string;
  expiresAt: number;
}

export interface TokenRecord {
  id: string;
  handle: string;
  createdAt: number;
  revokedAt?: number;
}

export type Visibility = 'participants' | 'public';

/** A task's own row: everything but its history, artifacts and events. */
export interface TaskRecord {
  id: string;
  kind: string;
  contextId: string;
  /** Handle of the agent that opened the task. */
  sender?: string;
  /** Handle of the agent the task is addressed to (direct tasks). */
  target?: string;
  visibility: Visibility;
  state: TaskState;
  statusMessage?: Message;
  statusAt: number;
  createdAt: number;
  updatedAt: number;
  metadata?: JsonObject;
  messageCount: number;
  artifactCount: number;
  /** Bumped by every write; writes are compare-and-set on it. */
  version: number;
  /** Sequence number of the task's last event. */
  lastSeq: number;
}

export interface StoredTask {
  record: TaskRecord;
  history: Message[];
  artifacts: Artifact[];
}

export interface Receipt {
  scope: string;
  key: string;
  /** Hash of the request, so a reused key with another request is told apart from a retry. */
  fingerprint: string;
  result: unknown;
}

export interface LoggedEvent {
  seq: number;
  event: StreamResponse;
}

export interface QuotaCharge {
  key: string;
  /** Start of the counting window; HOLD_WINDOW for a count of things held at once (open tasks). */
  windowStart: number;
  limit: number;
  /** 1 by default; -1 gives a hold back (never below zero). */
  amount?: number;
}

/** The window of quotas that count what is held at once rather than uses per period; never pruned. */
export const HOLD_WINDOW = 0;

/**
 * One agent's entry in a task that takes at most one per agent: a sealed contribution to a
 * review, an answer to an open call. Kept apart from the task's history, so a sealed entry
 * changes nothing anyone else can read of the task.
 */
export interface TaskEntry {
  taskId: string;
  author: string;
  id: string;
  body: JsonObject;
  createdAt: number;
}

/** An entry and the rule it is written under, checked in the write's own transaction. */
export interface EntryWrite {
  entry: TaskEntry;
  /** The task must be in this state... */
  whileState: TaskState;
  /** ...and hold fewer than this many entries, or nothing is written. */
  max: number;
}

/** A sealed entry on its own: the task row, history and events stay exactly as they are. */
export interface SealedWrite extends EntryWrite {
  receipt?: Receipt;
  quotas?: QuotaCharge[];
}

/** Work due on a task (a deadline), claimed with a lease by one scheduler at a time. */
export interface DueWork {
  taskId: string;
  dueAt: number;
}

export interface PushConfig {
  taskId: string;
  id: string;
  /** Handle of the agent (or `(admin)`) that registered it; only they read or delete it. */
  owner: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
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

export interface StoredSigningKey {
  kid: string;
  privateJwk: object;
  publicJwk: object;
  createdAt: number;
}

export interface TaskWrite {
  /** The row as it is after the write (version already bumped). */
  record: TaskRecord;
  /** For updates: the version the writer read. */
  expectedVersion?: number;
  newMessages: Message[];
  newArtifacts: Artifact[];
  events: StreamResponse[];
  receipt?: Receipt;
  quotas?: QuotaCharge[];
  /** Outbox rows for this write's events, stored in the same transaction. */
  deliveries?: DeliveryDraft[];
  /** An entry written with the change (an open call's answer), under its rule. */
  entry?: EntryWrite;
  /** The write holds only while the task has exactly this many entries (an evaluation read them all). */
  entriesSeen?: number;
  /** Schedules work on the task at this time (replacing any earlier schedule). */
  dueAt?: number;
  /** The task's scheduled work is done: its row goes with this write. */
  dueDone?: boolean;
}

/** Which tasks a list may show; decided by the hub's view, executed by the store. */
export type TaskScope =
  | { kind: 'inbox'; target: string }
  /** The tasks the agent sent to another agent (direct tasks): a review it posted has no target and is not "sent". */
  | { kind: 'sent'; sender: string }
  | { kind: 'between'; agent: string; other: string }
  | { kind: 'public' }
  /** Every public task, and the agent's own private ones (those with a target: direct tasks). */
  | { kind: 'visible'; agent: string };

export interface TaskCursor {
  updatedAt: number;
  id: string;
}

export interface TaskQuery {
  scope: TaskScope;
  states?: readonly TaskState[];
  contextId?: string;
  statusAtOrAfter?: number;
  after?: TaskCursor;
  limit: number;
  historyLength?: number;
  includeArtifacts: boolean;
}

export interface TaskPage {
  tasks: StoredTask[];
  total: number;
  hasMore: boolean;
}

export interface GetOptions {
  historyLength?: number;
  includeArtifacts: boolean;
}

export interface Store {
  readonly name: 'sqlite' | 'postgres';

  /** Registers an agent with its first token, charging `quotas` in the same transaction. */
  insertAgent(agent: AgentRecord, token: { id: string; hash: string }, quotas?: QuotaCharge[]): Promise<void>;
  getAgent(handle: string): Promise<AgentRecord | undefined>;
  /** The live (not revoked) token with this hash, if any. */
  findToken(hash: string): Promise<TokenRecord | undefined>;
  listTokens(handle: string): Promise<TokenRecord[]>;
  /** Adds a token; with `replace`, revokes every other live token of the agent in the same transaction. */
  insertToken(handle: string, token: { id: string; hash: string }, now: number, replace: boolean): Promise<void>;
  revokeToken(handle: string, tokenId: string, now: number): Promise<boolean>;
  /** One outstanding challenge per agent; a new one replaces the old. */
  saveChallenge(handle: string, challenge: EndpointChallenge): Promise<void>;
  /** Returns and forgets the agent's challenge. */
  takeChallenge(handle: string): Promise<EndpointChallenge | undefined>;
  markEndpointVerified(handle: string, endpoint: string, rpcUrl: string, now: number): Promise<AgentRecord>;
  /** Switches forwarding, charging `quotas`; switching off cancels the agent's pending forwards. */
  setForwarding(handle: string, enabled: boolean, quotas: QuotaCharge[]): Promise<AgentRecord>;

  createTask(write: TaskWrite): Promise<void>;
  updateTask(write: TaskWrite): Promise<void>;
  getTask(id: string, options: GetOptions): Promise<StoredTask | undefined>;
  listTasks(query: TaskQuery): Promise<TaskPage>;

  /**
   * Writes a sealed entry alone: StoreConflict 'entry-exists' when the author has one,
   * 'entry-closed' when the task left `whileState`, 'entry-full' at `max`.
   */
  addEntry(write: SealedWrite): Promise<void>;
  /** A task's entries in the order they were written. */
  entries(taskId: string): Promise<TaskEntry[]>;
  entryOf(taskId: string, author: string): Promise<TaskEntry | undefined>;

  /** Leases up to `limit` items of work due at `now` to `owner` until `leaseUntil`. */
  claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<DueWork[]>;
  /** When the earliest scheduled work falls due, if there is any. */
  nextDue(): Promise<number | undefined>;
  /** Forgets a task's due work when `owner` holds its lease (the work needed no write). */
  finishDue(taskId: string, owner: string): Promise<void>;

  getReceipt(scope: string, key: string): Promise<Receipt | undefined>;
  /** The task's stored events with a sequence number above `afterSeq`, in order, at most `limit`. */
  eventsAfter(taskId: string, afterSeq: number, limit: number): Promise<LoggedEvent[]>;
  /** Inserts or updates a config; false when the id belongs to another owner (nothing written). */
  putPushConfig(config: PushConfig): Promise<boolean>;
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

  loadSigningKeys(): Promise<StoredSigningKey[]>;
  /** Stores a key unless one exists already (first writer wins across nodes). */
  saveSigningKey(key: StoredSigningKey): Promise<void>;

  /**
   * Forgets receipts written before `before`, quota windows that ended before it, and finished
   * deliveries older than a week before it.
   */
  prune(before: number): Promise<void>;

  close(): Promise<void>;
}

/** The outbox channel of one push config within its task: its deliveries go out in event order. */
export const pushChannel = (configId: string): string => `push:${configId}`;

/** Thrown by the store; the hub turns each into a HubError. */
export class StoreConflict extends Error {
  constructor(
    readonly what: 'version' | 'receipt' | 'handle' | 'task-id' | 'entry-exists' | 'entry-closed' | 'entry-full',
    message: string,
  ) {
    super(message);
    this.name = 'StoreConflict';
  }
}

/** A quota charge would go over its limit; the whole write was rolled back. */
export class QuotaExceeded extends Error {
  constructor(readonly key: string, readonly limit: number) {
    super(`quota ${key} is used up (${limit} per window)`);
    this.name = 'QuotaExceeded';
  }
}
