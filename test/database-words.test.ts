/**
 * A database `muster serve` or `muster migrate` cannot use is said in one line of words with
 * what to do, exit 2, no stack: a PostgreSQL URL without a database (refused before connecting),
 * a database that does not exist, a refused role, a user that may not create tables, a port where
 * nothing listens, an SQLite file that is not a database, and a database a newer Muster migrated
 * (either store). The CLI is spawned for real.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runMuster, type Run } from './helpers/cli.js';
import { freshPostgresDatabase, testPostgres } from './helpers/postgres.js';

/**
 * `serve` and `migrate` on `db`: side by side on PostgreSQL; one after the other on an SQLite file,
 * which each holds alone while it opens it, so the other would be refused as "in use" instead.
 */
const both = async (db: string): Promise<Run[]> => {
  const serve = () =>
    runMuster(undefined, ['serve', '--port', '0'], undefined, { MUSTER_DB: db, MUSTER_ADMIN_TOKEN: 'words' });
  const migrate = () => runMuster(undefined, ['migrate', '--db', db]);
  if (db.startsWith('sqlite:')) return [await serve(), await migrate()];
  return Promise.all([serve(), migrate()]);
};

/** Each run refused with exit 2 and exactly one line, `serve`'s and `migrate`'s prefix before `words`. */
function refusedInWords([serve, migrate]: Run[], shown: string, words: string): void {
  for (const run of [serve!, migrate!]) {
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }
  expect(serve!.stderr.trim()).toBe(`muster: cannot open the database ${shown}: ${words}`);
  expect(migrate!.stderr.trim()).toBe(`muster: cannot migrate ${shown}: ${words}`);
}

/** The test server's URL with `change` made to it. */
const serverUrl = (change: (url: URL) => void): string => {
  const url = new URL(testPostgres!);
  change(url);
  return url.href;
};

describe('a database the hub cannot use, in words', () => {
  it('a PostgreSQL URL without a database is refused before connecting, naming one to add', async () => {
    const [serve, migrate, slash] = await Promise.all([
      runMuster(undefined, ['serve', '--port', '0'], undefined, { MUSTER_DB: 'postgres://muster:secret@127.0.0.1:1' }),
      runMuster(undefined, ['migrate', '--db', 'postgres://muster@127.0.0.1:1']),
      runMuster(undefined, ['migrate', '--db', 'postgresql://muster@db.internal:6543/?sslmode=require']),
    ]);
    for (const run of [serve!, migrate!, slash!]) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    // Refused before connecting: port 1 would answer ECONNREFUSED. The password is never shown.
    expect(serve!.stderr.trim()).toBe(
      'muster: MUSTER_DB names no database: postgres://muster:***@127.0.0.1:1; name one after the host, as in postgres://muster:***@127.0.0.1:1/muster (create it first if it does not exist: createdb -h 127.0.0.1 -p 1 -U muster muster)',
    );
    expect(migrate!.stderr.trim()).toBe(
      'muster: --db names no database: postgres://muster@127.0.0.1:1; name one after the host, as in postgres://muster@127.0.0.1:1/muster (create it first if it does not exist: createdb -h 127.0.0.1 -p 1 -U muster muster)',
    );
    expect(slash!.stderr).toContain(
      'as in postgresql://muster@db.internal:6543/muster?sslmode=require (create it first if it does not exist: createdb -h db.internal -p 6543 -U muster muster)',
    );
  });

  it('a port where nothing listens, and one where something that is not PostgreSQL closes the connection', async () => {
    const notPostgres = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((r) => notPostgres.listen(0, '127.0.0.1', r));
    const port = (notPostgres.address() as { port: number }).port;
    try {
      const closed = `postgres://muster@127.0.0.1:${port}/muster`;
      const [refused, hungUp] = await Promise.all([both('postgres://muster@127.0.0.1:1/muster'), both(closed)]);
      refusedInWords(
        refused,
        'postgres://muster@127.0.0.1:1/muster',
        'nothing accepts connections at 127.0.0.1:1 (ECONNREFUSED); is PostgreSQL running there, and listening on that address and port?',
      );
      refusedInWords(
        hungUp,
        closed,
        `127.0.0.1:${port} closed the connection before PostgreSQL answered; is PostgreSQL listening there, and may this machine reach it?`,
      );
    } finally {
      notPostgres.close();
    }
  });

  it('an SQLite file that is not a database', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'muster-words-')), 'notes.db');
    writeFileSync(file, 'These are my notes, not a database. '.repeat(40));
    refusedInWords(
      await both(`sqlite:${file}`),
      file,
      'it is not an SQLite database (SQLITE_NOTADB); name another file, or move this one away to start a new database there',
    );
  });

  /** What each store says of a database a newer Muster migrated (schema version 9999). */
  const NEWER = `: it was migrated by a newer Muster (schema version 9999; this one knows up to`;
  const refusedAsNewer = ([serve, migrate]: Run[]): void => {
    for (const run of [serve!, migrate!]) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(NEWER);
    }
  };

  it('an SQLite database a newer Muster migrated', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'muster-words-')), 'newer.db');
    expect((await runMuster(undefined, ['migrate', '--db', `sqlite:${file}`])).code).toBe(0);
    const db = new Database(file);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'later', 0)").run();
    db.close();
    refusedAsNewer(await both(`sqlite:${file}`));
  });

  it.runIf(testPostgres)('a PostgreSQL database a newer Muster migrated', async () => {
    const db = await freshPostgresDatabase('newer');
    try {
      expect((await runMuster(undefined, ['migrate', '--db', db.url])).code).toBe(0);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      await client
        .query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'later', 0)")
        .finally(() => client.end());
      refusedAsNewer(await both(db.url));
    } finally {
      await db.drop();
    }
  });

  it.runIf(testPostgres)('a database that does not exist: how to create it', async () => {
    const name = `muster_missing_${randomBytes(4).toString('hex')}`;
    const url = serverUrl((u) => (u.pathname = `/${name}`));
    const { hostname, port, username } = new URL(url);
    const at = `-h ${hostname} -p ${port || '5432'}${username ? ` -U ${username}` : ''}`;
    refusedInWords(
      await both(url),
      url,
      `the database "${name}" does not exist on ${hostname}:${port || '5432'} (3D000); create it with createdb ${at} ${name} (or psql ${at} -d postgres -c 'CREATE DATABASE "${name}"'), or name an existing one in the URL`,
    );
  });

  it.runIf(testPostgres)('a role the server refuses, and a user that may not create the tables', async () => {
    const db = await freshPostgresDatabase('words');
    const role = `muster_words_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const unknown = new URL(db.url);
      unknown.username = role;
      const server = `${unknown.hostname}:${unknown.port || '5432'}`;
      refusedInWords(
        await both(unknown.href),
        unknown.href,
        `PostgreSQL at ${server} refused the connection: role "${role}" does not exist (28000); check the user and password in the URL, and that pg_hba.conf lets that user in from this host`,
      );
      // A role that may connect but not create tables in schema public (PostgreSQL 15 and later).
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      const database = new URL(db.url).pathname.slice(1);
      refusedInWords(
        await both(unknown.href),
        unknown.href,
        `the user may not create the hub's tables: permission denied for schema public (42501); as a superuser, make it the database's owner: ALTER DATABASE "${database}" OWNER TO "${role}"`,
      );
    } finally {
      await admin.end();
      await db.drop();
      const server = new pg.Client({ connectionString: serverUrl((u) => (u.pathname = '/postgres')) });
      await server.connect();
      await server.query(`DROP ROLE IF EXISTS ${role}`).finally(() => server.end());
    }
  });
});
