/**
 * The pool, the one place driver errors become the store's errors, statements that retry what
 * PostgreSQL asks to be retried, and the migration runner.
 *
 * Most writes here are one statement (data-modifying CTEs) run outside BEGIN/COMMIT: a single
 * statement is its own transaction, so it stands whole or not at all and costs one round trip.
 * Task writes share that round trip and their commit with the others of their turn (`write`).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import {
  AgentPaused,
  PartsRefused,
  QuotaExceeded,
  StoreConflict,
  StoreUnavailable,
  TokenNotLive,
  type CommitObserver,
} from '../store.js';
import { MIGRATIONS } from './migrations.js';
import { refuseNewerSchema } from '../open-refusal.js';
import type { MigrationInputs } from '../open-key-backfill.js';
import { groupCommit, type WriteLocks } from './group-commit.js';
import { OmittedNeeded } from './omissions.js';

/** What the store's modules query through: one statement in its own transaction, or several in one. */
export interface Db {
  /** Runs one statement (prepared by name on each connection) and answers its rows and row count. */
  query<R = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
  ): Promise<{ rows: R[]; rowCount: number }>;
  /**
   * Runs one writing statement, committed with the other writes of this turn of the event loop
   * (group-commit.ts); `locks` names the rows it will wait on.
   */
  write<R = Record<string, unknown>>(
    text: string,
    values: readonly unknown[],
    locks: WriteLocks,
  ): Promise<{ rows: R[]; rowCount: number }>;
  /** Runs `work` in one transaction on one connection; retried whole on a serialization failure or deadlock. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

const INT8_OID = 20;

/**
 * BIGINT columns hold epoch ms and counts, all well inside 2^53: parse them as numbers, for this
 * pool's connections only (the driver's global parser is left alone for anyone else in the process).
 */
export const numericInt8: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * How long a connection may go unanswered: TCP keep-alive finds a peer that went silent (a
 * failover, a partition) instead of waiting on it for hours, and connecting gives up after 10 s.
 */
export const SILENCE_LIMITS = {
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  connectionTimeoutMillis: 10_000,
} as const;

export function openPool(url: string, size: number, log: (line: string) => void): pg.Pool {
  // Pipelined connections, so a group commit sends its whole transaction at once (group-commit.ts);
  // a single statement or transaction runs on one as before.
  // A database that does not answer is StoreUnavailable after a while, not a request held forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    types: numericInt8,
    application_name: 'muster',
    ...SILENCE_LIMITS,
    query_timeout: 30_000,
    pipeline: true,
  });
  // An idle connection the server drops emits here; without a listener it would end the process.
  pool.on('error', (e) => log(`a PostgreSQL connection failed while idle (${e.message})`));
  return pool;
}

/**
 * Ends the pool and waits until every connection has closed (the driver's end() answers before
 * they have), so a store that is closed leaves nothing connected behind it.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  const open = pool.totalCount;
  let closed = 0;
  const allClosed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => ++closed >= open && resolve());
  });
  await pool.end();
  await allClosed;
}

/** Attempts of a statement PostgreSQL refused with a serialization failure or deadlock. */
const ATTEMPTS = 4;

/** A statement that only reads commits nothing: it is not timed as a commit. */
const READ = /^\s*SELECT\b/i;

/**
 * The store's queries over `pool`. `observe` hears of every commit, with its time and how many
 * writes it carried: one for a statement or transaction of its own, a group's size for a group.
 */
export function database(pool: pg.Pool, observe?: CommitObserver): Db {
  const timed = <T>(write: () => Promise<T>): Promise<T> => {
    if (!observe) return write();
    const started = performance.now();
    return write().then((result) => {
      observe((performance.now() - started) / 1000, 1);
      return result;
    });
  };
  const query = (text: string, values?: readonly unknown[]) => {
    const run = () =>
      retried(async () => {
        const result = await pool.query({ name: statementName(text), text, values: values as unknown[] });
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      });
    return READ.test(text) ? run() : timed(run);
  };
  return {
    query: query as Db['query'],
    write: groupCommit({
      pool,
      alone: query,
      nameOf: statementName,
      storeError,
      isConnectionError,
      observe,
    }) as Db['write'],
    transaction: (work) => timed(() => retried(() => inTransaction(pool, work))),
  };
}

/**
 * The queries of a transaction already open on `client` (its statements named as the pool's are).
 * It opens none of its own (a nested transaction is a bug), and joins no group commit.
 */
export function clientDb(client: pg.ClientBase): Db {
  const query = async <R>(text: string, values?: readonly unknown[]) => {
    const result = await client.query({ name: statementName(text), text, values: values as unknown[] });
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };
  return {
    query,
    // Already inside a transaction, which commits the write: no group of its own.
    write: (text, values) => query(text, values),
    transaction: () => Promise.reject(new Error('a transaction inside a transaction')),
  };
}

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch((rollback: unknown) => (broken = rollback));
    throw e;
  } finally {
    // A connection that could not even roll back is not given to the next caller.
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/** Runs `attempt`, again on a serialization failure or deadlock (it rolled back whole), and maps what it throws. */
async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if (!isRetryable(e)) throw storeError(e);
      if (i >= ATTEMPTS) throw new StoreConflict('version', 'the write kept losing to concurrent writes');
      await new Promise((r) => setTimeout(r, Math.random() * 5 * i)); // jitter, so the rivals do not meet again
    }
  }
}

/** Named statements by a short key of their text (textKey), each with its whole text. */
const named = new Map<string, { text: string; name: string }[]>();
let namedCount = 0;
/** Most distinct statement texts given a name; past it (never, in practice) statements go unnamed. */
const MAX_NAMED = 1_000;
/** How much of a text's end its key holds: where the task writes' statements differ (the CTEs they read). */
const KEY_TAIL = 160;

/**
 * A statement's key: its length and its end. Hashing a task write's whole text (kilobytes, built
 * anew for every write) cost more than anything else the hub does for it; texts that share a key
 * are told apart by comparing them whole, which the driver does anyway.
 */
const textKey = (text: string): string => `${text.length}|${text.slice(-KEY_TAIL)}`;

/**
 * A name per statement text, the same for the whole process, so each connection parses a statement
 * once and then only binds it. (The driver refuses one name for two texts on a connection; one
 * name per text can never collide.)
 */
function statementName(text: string): string | undefined {
  const key = textKey(text);
  const texts = named.get(key) ?? [];
  const known = texts.find((t) => t.text === text);
  if (known) return known.name;
  if (namedCount >= MAX_NAMED) return undefined;
  const name = `muster_${namedCount++}`;
  named.set(key, [...texts, { text, name }]);
  return name;
}

const codeOf = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && 'code' in e && typeof (e as { code: unknown }).code === 'string'
    ? (e as { code: string }).code
    : undefined;

const isRetryable = (e: unknown): boolean => codeOf(e) === '40001' || codeOf(e) === '40P01';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|is not currently accepting connections|Query read timeout/i;

export function isConnectionError(e: unknown): boolean {
  const code = codeOf(e);
  if (code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return e instanceof Error && CONNECTION_MESSAGES.test(e.message);
}

/** Which refusal a unique violation is, by the constraint it broke. */
const CONFLICT_OF: Record<string, StoreConflict['what']> = {
  tasks_pkey: 'task-id',
  receipts_pkey: 'receipt',
  agents_pkey: 'handle',
  handles_pkey: 'handle',
  spaces_pkey: 'space-name',
  boards_pkey: 'board-id',
  task_entries_pkey: 'entry-exists',
  tasks_open_key: 'open-key',
  // A task's messages and events are numbered from its row: a clash means another write got there first.
  messages_pkey: 'version',
  events_pkey: 'version',
};

/** MU423's agent handle (the message) and its detail, `paused_at|paused_by[|operator]`. */
function pausedAgent(handle: string, detail: string): AgentPaused {
  const [at, by, operator] = detail.split('|');
  return new AgentPaused({
    handle,
    ...(operator ? { operator } : {}),
    paused: { at: Number(at), by: by === 'admin' ? 'admin' : 'operator' },
  });
}

/** MU415's agent handle (the message) and its detail, `index|modes as JSON|media type`. */
function partsRefused(handle: string, detail: string): PartsRefused {
  const [index, modes, ...type] = detail.split('|');
  return new PartsRefused(handle, Number(index), type.join('|'), JSON.parse(modes!) as string[]);
}

/** The store's error for a driver error; anything it does not know is passed on as it is. */
export function storeError(e: unknown): unknown {
  const code = codeOf(e);
  const error = e as pg.DatabaseError;
  if (code === 'MU409') return new StoreConflict(error.message as StoreConflict['what'], error.detail ?? error.message);
  if (code === 'MU429') return new QuotaExceeded(error.message, Number(error.detail));
  if (code === 'MU401') return new TokenNotLive();
  if (code === 'MU423') return pausedAgent(error.message, error.detail ?? '');
  if (code === 'MU415') return partsRefused(error.message, error.detail ?? '');
  if (code === 'MU428') return new OmittedNeeded(error.message, error.detail === 'forward' ? 'forward' : 'inbox');
  if (code === '23505') {
    const what = CONFLICT_OF[error.constraint ?? ''];
    return what ? new StoreConflict(what, error.detail ?? error.message) : e;
  }
  if (isConnectionError(e))
    return new StoreUnavailable(`PostgreSQL is unavailable: ${(e as Error).message}`, { cause: e });
  return e;
}

/** Any fixed number: every process that migrates this schema takes the same lock. */
const MIGRATION_LOCK = 0x6d757374; // "must"

/**
 * Applies pending migrations in one transaction under an advisory lock: a process that starts
 * while another migrates waits, then finds nothing left to do. Answers the versions it applied.
 */
export async function migrate(client: pg.ClientBase, inputs: MigrationInputs): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    // After the lock: each statement reads a fresh snapshot, so this sees what the last holder committed.
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    const { rows } = await client.query<{ v: number }>(
      'SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_migrations',
    );
    refuseNewerSchema(rows[0]?.v ?? 0, MIGRATIONS);
    const pending = MIGRATIONS.filter((m) => m.version > (rows[0]?.v ?? 0));
    for (const m of pending) {
      await client.query(m.sql);
      await m.data?.(client, inputs);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        Date.now(),
      ]);
    }
    await client.query('COMMIT');
    return pending.map((m) => m.version);
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw storeError(e);
  }
}

/** Connects a client of its own (not from a pool), mapping a failure to connect. */
export async function connectClient(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client({ types: numericInt8, ...config });
  try {
    await client.connect();
  } catch (e) {
    client.end().catch(() => {});
    throw storeError(e);
  }
  return client;
}

/**
 * Builds one statement of data-modifying CTEs: each part names the CTE it adds, `param` numbers
 * the values in the order parts ask for them. The same shape of write gives the same text, so
 * its prepared statement is reused.
 */
export class Statement {
  readonly values: unknown[] = [];
  private readonly parts: string[] = [];

  /** A placeholder for `value`, cast to `type` (parameters in SELECT lists have no type of their own). */
  param(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }

  with(name: string, sql: string): void {
    this.parts.push(`${name} AS (${sql})`);
  }

  text(main: string): string {
    return this.parts.length ? `WITH ${this.parts.join(',\n')}\n${main}` : main;
  }
}
