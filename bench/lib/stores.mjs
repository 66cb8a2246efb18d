// The stores of the per-store drivers: `--only`, a fresh database per store (a SQLite file in
// the temp dir, or a PostgreSQL database dropped at clean-up) and each store run in turn.
import os from 'node:os';
import path from 'node:path';
import { atCleanUp, benchTmp, cleanUp } from './processes.mjs';

/** The stores `--only a,b` (or `--only=a,b`) names, in `stores`' order; all of them without it. */
export function parseOnly(argv, stores) {
  const i = argv.indexOf('--only');
  const only = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--only='))?.slice(7);
  if (!only) return stores;
  const names = only.split(',');
  const unknown = names.filter((n) => !stores.includes(n));
  if (unknown.length)
    throw new Error(`--only takes a comma-separated list of: ${stores.join(', ')} (not ${unknown.join(', ')})`);
  return stores.filter((n) => names.includes(n));
}

/** Where bench databases are made: a role allowed to CREATE DATABASE (trust auth here). */
export const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Creates a fresh database on PG_ADMIN_URL's server, dropped (WITH (FORCE)) at clean-up; returns its name and URL. */
export async function freshDatabase(admin, role) {
  const name = `muster_bench_${process.pid}_${Date.now().toString(36)}_${role.replace(/\W/g, '_')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  console.log(`  made database ${name}`);
  atCleanUp(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    console.log(`dropped database ${name}`);
  });
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/**
 * A client on PG_ADMIN_URL (ended at clean-up) and the server's version, synchronous_commit and
 * fsync, which it prints.
 */
export async function connectPgAdmin() {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  atCleanUp(() => admin.end());
  const pgInfo = Object.fromEntries(
    (
      await admin.query(
        `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'synchronous_commit', 'fsync')`,
      )
    ).rows.map((r) => [r.name, r.setting]),
  );
  console.log(
    `PostgreSQL ${pgInfo.server_version} at ${new URL(PG_ADMIN_URL).host} (synchronous_commit=${pgInfo.synchronous_commit}, fsync=${pgInfo.fsync})`,
  );
  return { admin, pgInfo };
}

/**
 * Runs `runStore(name, admin)` for each named store in turn (PostgreSQL's admin connection made
 * only when one is named), cleaning up at the end; answers the results, the PostgreSQL settings
 * (when connected) and the load average at the start.
 */
export async function runStores(names, runStore) {
  let admin;
  let pgInfo;
  if (names.some((n) => n.startsWith('postgres'))) ({ admin, pgInfo } = await connectPgAdmin());
  const results = [];
  const loadStart = os.loadavg();
  try {
    for (const name of names) results.push(await runStore(name, admin));
  } finally {
    await cleanUp();
  }
  return { results, pgInfo, loadStart };
}

/**
 * The database of one store of a per-store driver: `sqlite` a fresh file `<file>` in the run's
 * temp dir, any other a fresh PostgreSQL database (freshDatabase). Answers `{ db }` (the hub's
 * `--db`) with `sqliteFile`, or `pgUrl` and `database`.
 */
export async function storeDatabase(store, admin, file) {
  if (store === 'sqlite') {
    const sqliteFile = path.join(benchTmp(), file);
    return { db: `sqlite:${sqliteFile}`, sqliteFile };
  }
  const made = await freshDatabase(admin, store);
  return { db: made.url, pgUrl: made.url, database: made.name };
}
