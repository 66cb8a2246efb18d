/**
 * The store contract, one file per concern: tasks.ts, identity.ts, outbox.ts, signing-keys.ts, schedule.ts,
 * operators.ts, receipts.ts, spaces.ts, boards.ts, inbox.ts, nodes.ts, events.ts and errors.ts each open with what they promise. Every dialect
 * (store/sqlite, store/postgres) fills the same parts in files of the same names and passes the
 * same suite (store.suite.ts). It is async because a networked database (PostgreSQL) stands behind it.
 */
import type { BoardStore } from './boards.js';
import type { StoreEvents } from './events.js';
import type { IdentityStore } from './identity.js';
import type { InboxStore } from './inbox.js';
import type { NodeStore } from './nodes.js';
import type { OperatorStore } from './operators.js';
import type { OutboxStore } from './outbox.js';
import type { ReceiptStore } from './receipts.js';
import type { ScheduleStore } from './schedule.js';
import type { SigningKeyStore } from './signing-keys.js';
import type { SpaceStore } from './spaces.js';
import type { TaskStore } from './tasks.js';

export * from './boards.js';
export * from './errors.js';
export * from './events.js';
export * from './identity.js';
export * from './inbox.js';
export * from './nodes.js';
export * from './operators.js';
export * from './outbox.js';
export * from './receipts.js';
export * from './schedule.js';
export * from './signing-keys.js';
export * from './spaces.js';
export * from './tasks.js';

/** Told of each commit of writes: how long it took and how many writes shared it (for metrics). */
export type CommitObserver = (seconds: number, writes: number) => void;

/**
 * All the parts at once. Each dialect builds it by spreading one object per part (each typed as its
 * contract) beside the few members that span parts; a consumer takes the parts it uses
 * (`IdentityStore`, `Pick<Store, 'listTasks' | 'exclusive'>`, …), the composition root the whole.
 */
export interface Store
  extends
    TaskStore,
    IdentityStore,
    OperatorStore,
    OutboxStore,
    SigningKeyStore,
    ScheduleStore,
    ReceiptStore,
    SpaceStore,
    BoardStore,
    InboxStore,
    NodeStore {
  readonly name: 'sqlite' | 'postgres';
  /**
   * True when this process is the only one on its database (the store enforces it). Only then may
   * anything above the store keep what it read in memory (see cached/cached-store.ts): no other process writes
   * behind its back.
   */
  readonly exclusive: boolean;
  readonly events: StoreEvents;

  /**
   * Forgets receipts written before `before`, quota windows that ended before it, and finished
   * deliveries older than a week before it.
   */
  prune(before: number): Promise<void>;

  close(): Promise<void>;
}
