/**
 * The store's refusals, the same from every dialect: each dialect turns its own driver's errors
 * (a unique violation, a serialization failure, a lost connection) into these, and the hub turns
 * these into its own errors. Anything else a store throws is a bug or an outage.
 */

/** A write lost to what is already stored; nothing of it was written. */
export class StoreConflict extends Error {
  constructor(
    readonly what:
      | 'version'
      | 'receipt'
      | 'handle'
      | 'task-id'
      | 'entry-exists'
      | 'entry-closed'
      | 'entry-full'
      | 'lease'
      | 'space-name'
      | 'board-id'
      | 'board-missing'
      | 'board-full'
      | 'boards-limit'
      | 'open-key',
    message: string,
  ) {
    super(message);
    this.name = 'StoreConflict';
  }
}

/** The agent a write opens a task for (`unlessPaused`) is paused: nothing was written. */
export class AgentPaused extends Error {
  constructor(readonly agent: { handle: string; operator?: string; paused: { at: number; by: 'operator' | 'admin' } }) {
    super(`agent ${agent.handle} is paused`);
    this.name = 'AgentPaused';
  }
}

/** The agent a write's parts go to (`takes`) does not take the part at `index`: nothing was written. */
export class PartsRefused extends Error {
  constructor(
    readonly agent: string,
    readonly index: number,
    readonly mediaType: string,
    readonly modes: readonly string[],
  ) {
    super(`agent ${agent} does not take ${mediaType}`);
    this.name = 'PartsRefused';
  }
}

/** The token a read or write was given (`liveToken`) is not live: nothing was read or written. */
export class TokenNotLive extends Error {
  constructor() {
    super('the token is not live');
    this.name = 'TokenNotLive';
  }
}

/** A quota charge would go over its limit; the whole write was rolled back. */
export class QuotaExceeded extends Error {
  constructor(
    readonly key: string,
    readonly limit: number,
  ) {
    super(`quota ${key} is used up (${limit} per window)`);
    this.name = 'QuotaExceeded';
  }
}

/** The database could not be reached or dropped the connection; the write may be retried. */
export class StoreUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}
