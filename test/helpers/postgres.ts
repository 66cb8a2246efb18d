/**
 * Fresh PostgreSQL databases for tests, on the server MUSTER_TEST_PG names
 * (e.g. postgres://postgres@127.0.0.1:5432). Each test file makes its own and drops them after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server to test against, or undefined: the PostgreSQL tests are skipped then. */
export const testPostgres: string | undefined = process.env['MUSTER_TEST_PG'] || undefined;

const serverUrl = (database: string): string => {
  const url = new URL(testPostgres!);
  url.pathname = `/${database}`;
  return url.href;
};

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new, empty database; `drop` removes it, closing whatever connections are still open on it. */
export async function freshPostgresDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `muster_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  return { url: serverUrl(name), drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
