/**
 * Open keys (TaskRecord.openKey) for tasks written before tasks had them (SQLite migration 13,
 * PostgreSQL 5), shared by both dialects' migrations: each reads the rows `backfillRows` selects
 * and writes back what `backfilledKeys` answers, in the migration's own transaction.
 *
 * The store knows no kind: whoever opens it hands the migrations each kind's derivation
 * (MigrationInputs.openKeys, from the kind modules), which derives a stored task's key as its kind
 * does when the task opens, so an upgraded open task refuses a racing twin exactly as a new one
 * does. Of several open tasks with one key (twins that raced, or declared with "force"), the oldest
 * takes it and the others stay without one: the unique index allows no more.
 */
import { OPEN_KEY_HOLDS } from './rows.js';

/** A kind's key for a stored task of it, from its metadata; undefined: none. */
export type OpenKeyOf = (metadata: Record<string, unknown> | undefined) => string | undefined;

/** What the migrations that compute rows in TypeScript are handed by whoever opens the store. */
export interface MigrationInputs {
  /** By kind, how a stored task's open key is derived (KindModule.openKeyOf). */
  openKeys: Readonly<Record<string, OpenKeyOf>>;
}

/** No inputs: a store opened so gives tasks written before open keys none (tests that need no upgrade). */
export const NO_MIGRATION_INPUTS: MigrationInputs = { openKeys: {} };

/**
 * The open tasks without a key of the kinds `kindIn` (the dialect's test of `kind` against the
 * kinds that derive keys, as a parameter) admits, oldest first (the order `backfilledKeys` needs).
 */
export const backfillRows = (kindIn: string) => `SELECT id, kind, metadata FROM tasks
  WHERE ${kindIn} AND open_key IS NULL AND ${OPEN_KEY_HOLDS}
  ORDER BY created_at, id`;

/** Each task's key, the first task (oldest) that derives a key taking it. */
export function backfilledKeys(
  rows: readonly { id: string; kind: string; metadata: string | null }[],
  inputs: MigrationInputs,
): { id: string; key: string }[] {
  const taken = new Set<string>();
  const keyed: { id: string; key: string }[] = [];
  for (const row of rows) {
    const derive = Object.hasOwn(inputs.openKeys, row.kind) ? inputs.openKeys[row.kind] : undefined;
    const key = derive?.(row.metadata === null ? undefined : JSON.parse(row.metadata));
    if (key === undefined || taken.has(key)) continue;
    taken.add(key);
    keyed.push({ id: row.id, key });
  }
  return keyed;
}
