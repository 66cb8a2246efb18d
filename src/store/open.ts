import type { DbConfig } from '../config.js';
import { cached } from './cached/cached-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

const postgres = () => import('./postgres/postgres-store.js');

/** The store `db` names, behind the caching layer (which only an exclusive store uses). */
export async function openStore(db: DbConfig, log: (line: string) => void): Promise<Store> {
  // Loaded only when asked for: a hub on SQLite never loads the PostgreSQL driver.
  const store = db.kind === 'sqlite' ? openSqliteStore(db.file) : await (await postgres()).openPostgresStore(db.url, { log });
  return cached(store);
}

/** Applies the database's pending migrations and closes it (`muster migrate`); answers the versions applied. */
export async function migrateStore(db: DbConfig): Promise<number[]> {
  if (db.kind === 'postgres') return (await (await postgres()).migratePostgres(db.url)).applied;
  let applied: number[] = [];
  const store = openSqliteStore(db.file, (versions) => (applied = versions)); // SQLite migrates as it opens
  await store.close();
  return applied;
}

/** A database URL fit for a log line: without its password. */
export function describeDb(db: DbConfig): string {
  if (db.kind === 'sqlite') return db.file;
  try {
    const url = new URL(db.url);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return 'postgres://…';
  }
}
