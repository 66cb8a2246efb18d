/**
 * A fresh database for one hub or store in a test: an SQLite file in a temp folder, or, when
 * MUSTER_TEST_PG is set, a new PostgreSQL database that `drop` removes. The whole suite runs on
 * either: `npm test` on SQLite, `MUSTER_TEST_PG=postgres://postgres@127.0.0.1:5432 npm test` on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { parseDb, type DbConfig } from '../../src/config/index.js';
import { freshPostgresDatabase, testPostgres } from './postgres.js';

export interface TestDatabase {
  /** The --db value. */
  url: string;
  config: DbConfig;
  /** A folder of the test's own (for the SQLite file, an admin-token file, anything else). */
  dir: string;
  /** Rows of a plain SELECT with `?` placeholders, read beside the running hub. */
  rows(sql: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

/** Which database the suite runs on. */
export const testDialect: 'sqlite' | 'postgres' = testPostgres ? 'postgres' : 'sqlite';

export async function testDatabase(
  label: string,
  dir = mkdtempSync(join(tmpdir(), `muster-${label}-`)),
): Promise<TestDatabase> {
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (!testPostgres) {
    const file = join(dir, 'muster.db');
    return {
      url: `sqlite:${file}`,
      config: parseDb(`sqlite:${file}`),
      dir,
      rows: async (sql, ...params) => {
        const db = new Database(file, { readonly: true }); // WAL lets a reader in beside the hub
        try {
          return db.prepare(sql).all(...params) as Record<string, unknown>[];
        } finally {
          db.close();
        }
      },
      drop: async () => removeDir(),
    };
  }
  const fresh = await freshPostgresDatabase(label);
  return {
    url: fresh.url,
    config: parseDb(fresh.url),
    dir,
    rows: async (sql, ...params) => {
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      try {
        let n = 0;
        return (
          await client.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    },
    drop: async () => {
      await fresh.drop();
      removeDir();
    },
  };
}
