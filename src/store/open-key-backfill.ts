/**
 * Open keys (TaskRecord.openKey) for tasks written before tasks had them (SQLite migration 13,
 * PostgreSQL 5), shared by both dialects' migrations: each reads the rows with BACKFILL_ROWS and
 * writes back what `backfilledKeys` answers, in the migration's own transaction.
 *
 * A key is derived as its kind derives it when the task opens (an intent's in twins.ts), so an
 * upgraded open intent refuses a racing twin exactly as a new one does. Of several open tasks
 * with one key (twins that raced, or declared with "force"), the oldest takes it and the others
 * stay without one: the unique index allows no more.
 */
import { intentOpenKey } from '../hub/kinds/intent/twins.js';
import { OPEN_KEY_HOLDS } from './rows.js';

/** A kind's key for a task of it, from its stored metadata; undefined: none. */
type Derivation = (metadata: Record<string, unknown> | undefined) => string | undefined;

const DERIVATIONS: Readonly<Record<string, Derivation>> = {
  intent: (metadata) => {
    const facts = metadata?.['muster'] as { space?: unknown; title?: unknown; footprint?: unknown } | undefined;
    const { space, title, footprint } = facts ?? {};
    if (typeof space !== 'string' || typeof title !== 'string' || !Array.isArray(footprint)) return undefined;
    return intentOpenKey(space, title, footprint.filter((f): f is string => typeof f === 'string'));
  },
};

/** The open tasks of the kinds that have keys, oldest first (the order `backfilledKeys` needs). */
export const BACKFILL_ROWS = `SELECT id, kind, metadata FROM tasks
  WHERE kind IN (${Object.keys(DERIVATIONS).map((k) => `'${k}'`).join(', ')}) AND open_key IS NULL AND ${OPEN_KEY_HOLDS}
  ORDER BY created_at, id`;

/** Each task's key, the first task (oldest) that derives a key taking it. */
export function backfilledKeys(rows: readonly { id: string; kind: string; metadata: string | null }[]): { id: string; key: string }[] {
  const taken = new Set<string>();
  const keyed: { id: string; key: string }[] = [];
  for (const row of rows) {
    const key = DERIVATIONS[row.kind]?.(row.metadata === null ? undefined : JSON.parse(row.metadata));
    if (key === undefined || taken.has(key)) continue;
    taken.add(key);
    keyed.push({ id: row.id, key });
  }
  return keyed;
}
