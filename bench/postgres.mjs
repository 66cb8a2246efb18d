// SendMessage and GetTask with PostgreSQL behind both servers, in the same run:
//   reference  the SDK's DefaultRequestHandler + DatabaseTaskStore (Kysely + pg, pool 10),
//              tables made by the SDK's own `a2a-db upgrade`
//   muster-1   one Muster hub (`dist/cli/main.js serve --db postgres://…`)
//   muster-2   two Muster hubs on one database, autocannon's 50 connections split between
//              them round-robin (25 each)
// each on a fresh database of its own (created on BENCH_PG_ADMIN_URL's server, dropped at
// the end). Rounds, warm-up, sample checks, medians and ratios are run.mjs's (lib.mjs).
//
//   node bench/postgres.mjs [--only reference,muster-1,muster-2] [--dry-run-sqlite]
//   env: BENCH_DURATION, BENCH_WARMUP, BENCH_ROUNDS (as run.mjs),
//        BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/test),
//        BENCH_MUSTER_NODE_ARGS (extra node flags for the Muster processes, e.g. --cpu-prof)
//
// --dry-run-sqlite puts muster-1 on an SQLite file instead, to check the harness before Muster
// runs on PostgreSQL (no muster-2: Muster allows one process per SQLite file); its figures mean
// nothing and go to bench/results/postgres-dryrun.json instead of postgres-latest.json.
//
// Exit code is non-zero only when something failed, never because a target was missed.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  atCleanUp,
  benchSettings,
  benchTmp,
  cleanUp,
  describeSettings,
  freshDatabase,
  median,
  PG_ADMIN_URL as ADMIN_URL,
  printTable,
  reportRatios,
  ROOT,
  runHeader,
  runRounds,
  startMuster,
  startReference,
  writeResults,
} from './lib.mjs';

const MUSTER_NODE_ARGS = (process.env.BENCH_MUSTER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const TARGETS = { SendMessage: 8, GetTask: 2 }; // issue 34 raised SendMessage's from 5× (met) to 8×
// Reference in the middle: adjacent to each Muster configuration in every round, so both
// per-round ratios compare runs taken back to back.
const ORDER = ['muster-1', 'reference', 'muster-2'];
const COMPARISONS = [
  { of: 'muster-1', to: 'reference' },
  { of: 'muster-2', to: 'reference' },
];
const STATS_FLUSH_MS = 1200; // PostgreSQL backends publish their counters about once a second

const argv = process.argv.slice(2);
const DRY_RUN = argv.includes('--dry-run-sqlite');

function parseOnly() {
  const i = argv.indexOf('--only');
  const only = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--only='))?.slice(7);
  const available = DRY_RUN ? ORDER.filter((n) => n !== 'muster-2') : ORDER;
  if (!only) return available;
  const names = only.split(',');
  const unknown = names.filter((n) => !available.includes(n));
  if (unknown.length) {
    throw new Error(
      `--only takes a comma-separated list of: ${available.join(', ')} (not ${unknown.join(', ')})` +
        (DRY_RUN && unknown.includes('muster-2')
          ? '; muster-2 needs PostgreSQL, Muster allows one process per SQLite file'
          : ''),
    );
  }
  return available.filter((n) => names.includes(n));
}

const execFileP = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- what each run used
// CPU of the driver (autocannon), the server's processes and all PostgreSQL processes, from
// /proc; the server database's transaction and row counters, from pg_stat_database.

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from #3 (state) on
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
  } catch {
    return undefined; // gone
  }
}

function postgresCpu() {
  const byPid = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8') !== 'postgres\n') continue;
    } catch {
      continue;
    }
    const s = cpuSeconds(pid);
    if (s !== undefined) byPid.set(pid, s);
  }
  return byPid;
}

function cpuSnapshot(server) {
  return {
    at: performance.now(),
    driver: process.cpuUsage(),
    server: server.pids.map(cpuSeconds),
    postgres: postgresCpu(),
  };
}

async function dbCounters(admin, db) {
  if (!db) return undefined;
  const {
    rows: [row],
  } = await admin.query(
    `SELECT xact_commit + xact_rollback AS xacts, tup_inserted, tup_updated, tup_fetched, tup_returned, blks_read, blks_hit,
            (SELECT count(*) FROM pg_stat_activity WHERE datname = $1) AS backends
       FROM pg_stat_database WHERE datname = $1`,
    [db],
  );
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

/** The pids of the backends connected to `db` now. */
async function backendsOf(admin, db) {
  if (!db) return [];
  const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [db]);
  return rows.map((r) => String(r.pid));
}

/** Client connections to this PostgreSQL server that are not this run's (other users of it). */
async function otherClients(admin, ours) {
  const {
    rows: [row],
  } = await admin.query(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND (datname IS NULL OR NOT datname = ANY($1))`,
    [ours],
  );
  return Number(row.n);
}

function makeProbe(admin, ourDatabases) {
  return {
    async before(server) {
      await sleep(STATS_FLUSH_MS); // so the warm-up's and the samples' counters are in
      return {
        db: await dbCounters(admin, server.db),
        cpu: cpuSnapshot(server),
        others: await otherClients(admin, ourDatabases()),
      };
    },
    async after(server, before, result) {
      const cpu = cpuSnapshot(server);
      const backends = await backendsOf(admin, server.db);
      await sleep(STATS_FLUSH_MS);
      const db = await dbCounters(admin, server.db);
      const others = Math.max(before.others, await otherClients(admin, ourDatabases()));
      if (others > 0) process.stdout.write(`(${others} other client(s) on this PostgreSQL server) `);
      const wall = (cpu.at - before.cpu.at) / 1000;
      const cores = (seconds) => Number((seconds / wall).toFixed(3));
      let postgres = 0;
      for (const [pid, s] of cpu.postgres) postgres += s - (before.cpu.postgres.get(pid) ?? 0);
      // Only the server's own database's backends: on a PostgreSQL shared with others (test suites), theirs stay out.
      let ownBackends = 0;
      for (const pid of backends) ownBackends += (cpu.postgres.get(pid) ?? 0) - (before.cpu.postgres.get(pid) ?? 0);
      const driverUs = cpu.driver.user - before.cpu.driver.user + cpu.driver.system - before.cpu.driver.system;
      const observed = {
        cores: {
          driver: cores(driverUs / 1e6),
          server: cpu.server.map((s, i) => cores((s ?? 0) - (before.cpu.server[i] ?? 0))),
          postgres: cores(postgres),
          ...(server.db && { databaseBackends: cores(ownBackends) }),
        },
        otherClients: others,
      };
      if (db) {
        const per = (key) => Number(((db[key] - before.db[key]) / result.requests.total).toFixed(3));
        observed.perRequest = {
          xacts: per('xacts'),
          rowsInserted: per('tup_inserted'),
          rowsUpdated: per('tup_updated'),
          rowsFetched: per('tup_fetched'),
          rowsReturned: per('tup_returned'),
          blocksRead: per('blks_read'),
          blocksHit: per('blks_hit'),
        };
        observed.backends = db.backends;
      }
      return observed;
    },
  };
}

/** Medians over the rounds of what the probe saw, per server and scenario; printed as a table. */
function summarizeObserved(runs) {
  const out = {};
  const rows = [
    [
      'server',
      'scenario',
      'driver',
      'hub/server',
      'postgres',
      'its backends',
      'xacts/req',
      'ins/req',
      'upd/req',
      'fetched/req',
      'backends',
    ],
  ];
  const m = (xs) => median(xs);
  for (const [server, byScenario] of Object.entries(runs)) {
    for (const [scenario, list] of Object.entries(byScenario)) {
      const obs = list.map((r) => r.observed);
      const serverCores = obs[0].cores.server.map((_, i) => m(obs.map((o) => o.cores.server[i])));
      const o = {
        cores: {
          driver: m(obs.map((x) => x.cores.driver)),
          server: serverCores,
          postgres: m(obs.map((x) => x.cores.postgres)),
          ...(obs[0].cores.databaseBackends !== undefined && {
            databaseBackends: m(obs.map((x) => x.cores.databaseBackends)),
          }),
        },
      };
      if (obs[0].perRequest) {
        o.perRequest = Object.fromEntries(
          Object.keys(obs[0].perRequest).map((k) => [k, m(obs.map((x) => x.perRequest[k]))]),
        );
        o.backends = Math.max(...obs.map((x) => x.backends));
      }
      (out[server] ??= {})[scenario] = o;
      const f = (x) => x.toFixed(2);
      rows.push([
        server,
        scenario,
        f(o.cores.driver),
        serverCores.map(f).join('+'),
        f(o.cores.postgres),
        o.cores.databaseBackends === undefined ? '-' : f(o.cores.databaseBackends),
        ...(o.perRequest
          ? [
              f(o.perRequest.xacts),
              f(o.perRequest.rowsInserted),
              f(o.perRequest.rowsUpdated),
              f(o.perRequest.rowsFetched),
              String(o.backends),
            ]
          : ['-', '-', '-', '-', '-']),
      ]);
    }
  }
  console.log(
    `\nwhat the measured runs used (medians over rounds): CPU in cores of ${os.cpus().length} (postgres: every ` +
      "PostgreSQL process; its backends: those connected to the server's database at the end); " +
      "PostgreSQL counters of the server's database per request; backends: its connections at the end",
  );
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  for (const row of rows)
    console.log(row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  return out;
}

// ---------------------------------------------------------------- main

async function main() {
  const serverNames = parseOnly();
  const settings = benchSettings();
  console.log(describeSettings(settings));
  console.log('note: Muster runs with MUSTER_RATE_LIMITS=off (per-pair/inbox rate limits disabled)');
  if (DRY_RUN) console.log('DRY RUN: muster-1 is on SQLite, no muster-2; figures are for checking the harness only');

  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  atCleanUp(() => admin.end());
  const pgInfo = Object.fromEntries(
    (
      await admin.query(
        `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'max_connections', 'shared_buffers', 'synchronous_commit', 'fsync', 'wal_level')`,
      )
    ).rows.map((r) => [r.name, r.setting]),
  );
  console.log(
    `PostgreSQL ${pgInfo.server_version} at ${new URL(ADMIN_URL).host} (synchronous_commit=${pgInfo.synchronous_commit}, fsync=${pgInfo.fsync})`,
  );

  const servers = {};
  const databases = {};
  let outcome;
  try {
    for (const name of serverNames) {
      if (name === 'reference') {
        const db = (databases[name] = await freshDatabase(admin, name));
        const { stdout, stderr } = await execFileP(
          path.join(ROOT, 'node_modules/.bin/a2a-db'),
          ['upgrade', '--url', db.url],
          { cwd: ROOT },
        );
        console.log(`a2a-db upgrade on ${db.name}: ${(stdout + stderr).trim().split('\n').join('; ')}`);
        console.log(
          'starting reference (SDK DefaultRequestHandler + DatabaseTaskStore on PostgreSQL, Kysely + pg pool 10, express)',
        );
        servers[name] = { ...(await startReference({ pgUrl: db.url })), db: db.name };
      } else {
        const processes = name === 'muster-2' ? 2 : 1;
        const db = DRY_RUN
          ? { url: `sqlite:${path.join(benchTmp(), `${name}.db`)}` }
          : (databases[name] = await freshDatabase(admin, name));
        console.log(`starting ${name}: ${processes} Muster process(es) on ${db.name ?? db.url}`);
        servers[name] = {
          ...(await startMuster({ name, db: db.url, processes, nodeArgs: MUSTER_NODE_ARGS })),
          db: db.name,
        };
      }
    }
    const ours = () => Object.values(databases).map((d) => d.name);
    outcome = await runRounds({
      servers,
      order: serverNames,
      comparisons: COMPARISONS,
      settings,
      probe: makeProbe(admin, ours),
    });
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    await cleanUp(); // drops the databases, closes the admin connection
  }
  const { runs, results, roundOrders, roundRatios, failed } = outcome;

  printTable(results, settings.rounds);
  const observed = summarizeObserved(runs);
  const ratios = reportRatios({ comparisons: COMPARISONS, roundRatios, targets: TARGETS });

  writeResults(DRY_RUN ? 'postgres-dryrun.json' : 'postgres-latest.json', {
    ...runHeader({ settings, roundOrders, servers: serverNames }),
    dryRunSqlite: DRY_RUN,
    cpuModel: os.cpus()[0]?.model,
    setup: {
      reference:
        'DefaultRequestHandler + DatabaseTaskStore (Kysely PostgresDialect, pg.Pool max 10) + express jsonRpcHandler; tables by a2a-db upgrade',
      'muster-1': DRY_RUN ? 'one hub on SQLite (dry run)' : 'one hub: dist/cli/main.js serve --db postgres://…',
      'muster-2': 'two hubs on one database; connection i goes to hub i % 2 (autocannon url list)',
    },
    musterEnv: { MUSTER_RATE_LIMITS: 'off' },
    musterNodeArgs: MUSTER_NODE_ARGS,
    postgres: pgInfo,
    databases: Object.fromEntries(Object.entries(databases).map(([k, v]) => [k, v.name])),
    results, // per server/scenario: medians over rounds, and `rounds`: every run (with `observed`)
    observed, // per server/scenario: medians of the runs' CPU and PostgreSQL counters
    ratios, // per comparison and scenario: median of roundRatios
    roundRatios,
    targets: TARGETS,
    loadAverage: os.loadavg(),
  });
  if (failed) {
    console.error('\nbench FAILED: some requests were not answered with a JSON-RPC result (see errors column)');
    process.exitCode = 1;
  }
}

main().catch(async (err) => {
  console.error(`\nbench FAILED: ${err.message}`);
  await cleanUp();
  process.exit(1); // the 'exit' handler kills any child still running
});
