import Database from 'better-sqlite3';
import { touchFile } from '../../files/folders.js';
import { MIGRATIONS } from './migrations.js';
import { refuseNewerSchema } from '../open-refusal.js';
import { NO_MIGRATION_INPUTS, type MigrationInputs } from '../open-key-backfill.js';

export type Db = Database.Database;

/** better-sqlite3's error for a row that breaks a key (the one place SQLite's constraint errors are recognised). */
export const isConstraintViolation = (e: unknown): boolean =>
  typeof e === 'object' &&
  e !== null &&
  'code' in e &&
  String((e as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT');

/**
 * Prepares each statement text once, for reads whose conditions vary (lists, recalls).
 *
 * Every statement of this store writes a bound LIMIT as `LIMIT +?` (or `+@name`): SQLite 3.53
 * prepares a statement whose LIMIT is a bare parameter again on every run (a task's last messages:
 * 7.5 µs a read against 3.6 µs with `+`), and the unary plus, which changes no value, keeps the
 * plan. bound-limits.test.ts holds the store to it.
 */
export function statementCache(db: Db): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
}

/** Opens (creating if needed) the SQLite file in WAL mode and applies pending migrations (`applied` hears which). */
export function openDatabase(
  file: string,
  applied: (versions: number[]) => void = () => {},
  inputs: MigrationInputs = NO_MIGRATION_INPUTS,
): Db {
  if (file !== ':memory:') touchFile(file); // a refusal in the system's words, not SQLite's "unable to open"
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL: a committed write survives a crash of the process; only power loss can drop the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536'); // 64 MiB of page cache: list pages and hot index pages stay in memory
  applied(migrate(db, inputs));
  return db;
}

function migrate(db: Db, inputs: MigrationInputs): number[] {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  // IMMEDIATE takes the write lock first, so two processes starting at once migrate one after the other.
  const apply = db.transaction(() => {
    const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number };
    refuseNewerSchema(row.v, MIGRATIONS);
    const pending = MIGRATIONS.filter((m) => m.version > row.v);
    for (const m of pending) {
      db.exec(m.sql);
      m.data?.(db, inputs);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        Date.now(),
      );
    }
    return pending.map((m) => m.version);
  });
  return apply.immediate();
}
