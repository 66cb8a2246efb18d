/**
 * Fresh PostgreSQL databases for tests. MUSTER_TEST_PG names a server (a URL without a database,
 * e.g. postgres://postgres@127.0.0.1:5432); without it, PostgreSQL tests are skipped.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const testPostgres: string | undefined = process.env['MUSTER_TEST_PG'] || undefined;

/** The server's URL with `database` as its database. */
function onDatabase(database: string): string {
  const url = new URL(testPostgres!);
  url.pathname = `/${database}`;
  return url.href;
}

/** Runs `sql` on the server's maintenance database (CREATE and DROP DATABASE cannot run in the one they name). */
export async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: onDatabase('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates a database of the test's own; `drop` ends whatever is still connected to it and removes it. */
export async function freshPostgresDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!testPostgres) throw new Error('MUSTER_TEST_PG is not set');
  const name = `muster_${label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30)}_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE "${name}"`);
  return {
    url: onDatabase(name),
    drop: async () => {
      await onServer(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
      );
      await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/**
 * An outage of the database at `url`, made from the server's maintenance database: `cut` turns new
 * connections away and ends the open ones, `restore` lets them in again.
 */
export async function databaseOutage(
  url: string,
): Promise<{ cut: () => Promise<void>; restore: () => Promise<void>; close: () => Promise<void> }> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: onDatabase('postgres') });
  await admin.connect();
  const allow = async (allowed: boolean) =>
    void (await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS ${allowed}`));
  return {
    cut: async () => {
      await allow(false);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    },
    restore: () => allow(true),
    close: async () => {
      await allow(true).catch(() => {});
      await admin.end();
    },
  };
}
