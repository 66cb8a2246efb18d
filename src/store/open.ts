import type { DbConfig } from '../config/config.js';
import { cached } from './cached/cached-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { CommitObserver, Store } from './store.js';
import type { MigrationInputs } from './open-key-backfill.js';
import { refusedAtOpen } from './open-refusal.js';

const postgres = () => import('./postgres/postgres-store.js');

/**
 * The store `db` names, behind the caching layer (which only an exclusive store uses), migrated
 * with `inputs` (the kinds' open keys, from kindMigrationInputs). `log` hears what the store cannot say
 * in an error (a lost PostgreSQL connection); `observe`, each commit. A database it cannot open is
 * refused in words (open-refusal.ts).
 */
export async function openStore(
  db: DbConfig,
  inputs: MigrationInputs,
  log: (line: string) => void,
  observe?: CommitObserver,
): Promise<Store> {
  try {
    // Loaded only when asked for: a hub on SQLite never loads the PostgreSQL driver.
    const store =
      db.kind === 'sqlite'
        ? openSqliteStore(db.file, { ...(observe ? { observe } : {}), inputs, log })
        : await (
            await postgres()
          ).openPostgresStore(db.url, { log, migrationInputs: inputs, ...(observe ? { observe } : {}) });
    return cached(store);
  } catch (e) {
    throw refusedAtOpen(db, e); // in words: the database does not exist, the role was refused, …
  }
}

/** Applies the database's pending migrations and closes it (`muster migrate`); answers the versions applied. */
export async function migrateStore(db: DbConfig, inputs: MigrationInputs): Promise<number[]> {
  try {
    if (db.kind === 'postgres') return (await (await postgres()).migratePostgres(db.url, inputs)).applied;
    let applied: number[] = [];
    const store = openSqliteStore(db.file, { applied: (versions) => (applied = versions), inputs }); // SQLite migrates as it opens
    await store.close();
    return applied;
  } catch (e) {
    throw refusedAtOpen(db, e);
  }
}
