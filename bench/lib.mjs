// Pieces the benchmark drivers share. fanout.mjs and review-due.mjs use only freePort; the
// SendMessage/GetTask drivers (run.mjs on SQLite, postgres.mjs on PostgreSQL) use the child
// servers (Muster, the SDK reference), the two scenarios with their sample checks, the rounds
// with alternating order and warm-up, medians, per-round ratios and the results file; the
// per-store drivers (intents.mjs, memory.mjs) use the hubs, the fresh databases, `--only`, the
// HTTP and JSON-RPC helpers, the pool, percentiles and the CPU of a process.
// Nothing here runs at import: the temp dir and exit handlers are set up on first use.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MUSTER_ROOT = process.env.BENCH_MUSTER_ROOT ?? ROOT;
export const CONNECTIONS = 50;
export const ADMIN_TOKEN = 'bench-admin';
const A2A_HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

/** A port nothing listens on right now, on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_ROUNDS (default 3). */
export function benchSettings(env = process.env) {
  const settings = {
    duration: Number(env.BENCH_DURATION ?? 10),
    warmup: Number(env.BENCH_WARMUP ?? 3),
    rounds: Number(env.BENCH_ROUNDS ?? 3),
  };
  if (!Number.isInteger(settings.rounds) || settings.rounds < 1) {
    throw new Error(`BENCH_ROUNDS must be a positive integer, got "${env.BENCH_ROUNDS}"`);
  }
  return settings;
}

/** The first line a driver prints. */
export function describeSettings({ duration, warmup, rounds }) {
  return (
    `bench: ${CONNECTIONS} connections, ${rounds} round(s) of ${duration} s per run ` +
    `(${warmup > 0 ? `${warmup} s warm-up before each server/scenario's first run only` : 'no warm-up'}), ` +
    `node ${process.version}, ${os.cpus().length} cores, load generator in this process`
  );
}

// ---------------------------------------------------------------- child processes and clean-up

const children = new Set();
const cleanups = []; // async clean-ups (e.g. dropping databases), run once, last added first
let tmp;

async function runCleanups() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (err) {
      console.error(`clean-up failed: ${err.message}`);
    }
  }
}

/** The run's temp dir (logs, SQLite files), deleted at exit; set up on first call. */
export function benchTmp() {
  if (tmp) return tmp;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'muster-bench-'));
  process.on('exit', () => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  });
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      for (const c of children) c.kill('SIGKILL');
      runCleanups().finally(() => process.exit(130));
    });
  }
  return tmp;
}

/**
 * Registers an async clean-up, run by `cleanUp()` (call it in the driver's finally) or on
 * SIGINT/SIGTERM; each runs once.
 */
export function atCleanUp(fn) {
  benchTmp();
  cleanups.push(fn);
}
export const cleanUp = runCleanups;

/**
 * Starts `node <args>` with output going to a log file in the temp dir; resolves once
 * `readyUrl` answers 200, with the child's pid and a stop() (SIGTERM, SIGKILL after 5 s).
 */
export async function startChild(name, args, env, readyUrl) {
  const log = path.join(benchTmp(), `${name}.log`);
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', fd, fd],
  });
  children.add(child);
  let exited = null;
  child.on('exit', (code, sig) => {
    exited = sig ?? code;
    children.delete(child);
  });
  const tail = () => readFileSync(log, 'utf8').split('\n').slice(-20).join('\n');

  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before becoming ready:\n${tail()}`);
    try {
      if ((await fetch(readyUrl)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (exited === null && Date.now() >= deadline)
    throw new Error(`${name} not ready after 20 s (${readyUrl}):\n${tail()}`);

  return {
    pid: child.pid,
    async stop() {
      if (exited !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------- the servers
// A started server is { urls, headers, sendConfiguration?, pids, stop }: its JSON-RPC
// endpoint(s) (one per process), the headers every request carries and its processes.

/** bench/reference-server.mjs; with `pgUrl` its task store is the SDK's DatabaseTaskStore there. */
export async function startReference({ name = 'reference', pgUrl } = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startChild(
    name,
    ['bench/reference-server.mjs', String(port), ...(pgUrl ? ['--pg', pgUrl] : [])],
    {},
    `${base}/.well-known/agent-card.json`,
  );
  // returnImmediately: answer after the first (SUBMITTED task) event, like Muster.
  return {
    urls: [`${base}/a2a/jsonrpc`],
    headers: A2A_HEADERS,
    sendConfiguration: { returnImmediately: true },
    pids: [child.pid],
    stop: child.stop,
  };
}

/** The node flags on the first line of Muster's command (`#!/usr/bin/env -S node …`), so a hub runs as `muster serve` does. */
function binNodeFlags(main) {
  const first = readFileSync(main, 'utf8').split('\n', 1)[0];
  const flags = /^#!\/usr\/bin\/env -S node(.*)$/.exec(first)?.[1];
  return flags ? flags.trim().split(/\s+/).filter(Boolean) : [];
}

/**
 * `processes` Muster hubs (`<root>/dist/cli/main.js serve --db <db>`, root BENCH_MUSTER_ROOT or this clone), started
 * in turn on one database, MUSTER_RATE_LIMITS=off, request lines off; their bases have no trailing slash.
 */
export async function startHubs({ name = 'muster', db, processes = 1, nodeArgs = [], root = MUSTER_ROOT }) {
  const main = path.join(root, 'dist/cli/main.js');
  if (!existsSync(main)) throw new Error(`${main} not found: run "npm run build" first (or use --only reference)`);
  const asInstalled = [...binNodeFlags(main), ...nodeArgs];
  const started = [];
  const stop = () => Promise.all(started.map((c) => c.stop()));
  try {
    const bases = [];
    for (let i = 0; i < processes; i++) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      started.push(
        await startChild(
          processes > 1 ? `${name}-${i + 1}` : name,
          [...asInstalled, main, 'serve', '--port', String(port), '--db', db],
          { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, MUSTER_RATE_LIMITS: 'off', MUSTER_LOG_LEVEL: 'warn' },
          `${base}/health`,
        ),
      );
      bases.push(base);
    }
    return { bases, pids: started.map((c) => c.pid), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Registers an agent through `base` with the admin token; answers the registration (with its token). */
export async function registerAgent(base, handle) {
  const res = await fetch(`${base}/api/agents`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ handle }),
  });
  const body = await res.text();
  if (res.status !== 201) throw new Error(`POST /api/agents ${handle}: HTTP ${res.status} ${body}`);
  return JSON.parse(body);
}

/** Muster hubs as a bench server: bench-sender sends to bench-target, through every hub. */
export async function startMuster(options) {
  const hubs = await startHubs(options);
  try {
    const sender = await registerAgent(hubs.bases[0], 'bench-sender');
    await registerAgent(hubs.bases[0], 'bench-target');
    return {
      urls: hubs.bases.map((base) => `${base}/agents/bench-target/`),
      headers: { ...A2A_HEADERS, Authorization: `Bearer ${sender.token}` },
      // Nobody answers bench-target: a blocking send would wait out the hub's wait (A2A 1.0 §3.2.2).
      sendConfiguration: { returnImmediately: true },
      pids: hubs.pids,
      stop: hubs.stop,
    };
  } catch (err) {
    await hubs.stop();
    throw err;
  }
}

// ---------------------------------------------------------------- PostgreSQL databases

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

// ---------------------------------------------------------------- per-store drivers: options, HTTP, figures

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

/** The nearest-rank percentile `p` (0-100) of `values`; null when there are none. */
export function percentile(values, p) {
  if (!values.length) return null;
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))];
}
/** Milliseconds to one decimal (null stays null). */
export const ms = (x) => (x === null ? null : Number(x.toFixed(1)));
/** p50, p99, max (ms, one decimal) and how many, of latencies in ms. */
export const latency = (values) => ({
  p50: ms(percentile(values, 50)),
  p99: ms(percentile(values, 99)),
  max: ms(values.length ? Math.max(...values) : null),
  n: values.length,
});

let clkTck;
/** CPU time of a process so far (utime + stime, from /proc), in seconds; undefined when it is gone. */
export function cpuSeconds(pid) {
  clkTck ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clkTck;
  } catch {
    return undefined;
  }
}

/** One HTTP request with fetch, JSON in and out: `{ status, body, text }` (body undefined when not JSON). */
export async function http(method, url, { token, body } = {}) {
  const headers = {
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const res = await fetch(url, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text };
}

/** The body of `request` (an http() promise), or throws unless it answered `status`. */
export async function expectStatus(what, status, request) {
  const res = await request;
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
  return res.body;
}

/** One JSON-RPC call; its `result`, or throws with the answer. */
export async function rpc(url, method, params, token) {
  const res = await http('POST', url, { token, body: { jsonrpc: '2.0', id: 1, method, params } });
  if (res.status !== 200 || !res.body || res.body.error || res.body.result === undefined) {
    throw new Error(`${method} at ${url}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
  }
  return res.body.result;
}

/** Runs `count` jobs (`job(i)`, i from 0), `width` at a time. */
export async function pool(count, width, job) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

// ---------------------------------------------------------------- scenarios

const rpcBody = (method, params) => ({ jsonrpc: '2.0', id: 1, method, params });
const sendMessage = (server, messageId) =>
  rpcBody('SendMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    ...(server.sendConfiguration && { configuration: server.sendConfiguration }),
  });

/** One JSON-RPC call with fetch; returns `result` or throws with the server's answer. */
async function call(server, body, url = server.urls[0]) {
  const res = await fetch(url, { method: 'POST', headers: server.headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    /* reported below */
  }
  if (res.status !== 200 || !json || json.error || json.result === undefined) {
    const where = server.urls.length > 1 ? ` on ${url}` : '';
    throw new Error(`${body.method} sample failed${where}: HTTP ${res.status} ${text.slice(0, 500)}`);
  }
  return json.result;
}

// Each scenario's prepare() checks real responses (from every process of the server) and
// returns the autocannon request.
export const SCENARIOS = {
  SendMessage: {
    async prepare(server) {
      for (const url of server.urls) {
        const result = await call(server, sendMessage(server, `m-sample-${randomUUID()}`), url);
        if (!result.task?.id) throw new Error(`SendMessage sample has no result.task.id: ${JSON.stringify(result)}`);
      }
      // "[<id>]" is replaced by autocannon (idReplacement) so every messageId is unique.
      return { body: JSON.stringify(sendMessage(server, 'm-[<id>]')), idReplacement: true };
    },
  },
  GetTask: {
    async prepare(server) {
      // Created through the first process, read through every one (with two hubs on one
      // database, the second must see what the first stored).
      const { task } = await call(server, sendMessage(server, `m-gettask-${randomUUID()}`));
      const body = rpcBody('GetTask', { id: task.id });
      for (const url of server.urls) {
        const got = await call(server, body, url);
        if (got.id !== task.id) throw new Error(`GetTask sample returned another task: ${JSON.stringify(got)}`);
      }
      return { body: JSON.stringify(body), idReplacement: false };
    },
  },
};

function load(server, request, duration) {
  return autocannon({
    // Several processes: autocannon hands connection i to url i % n (round-robin), one
    // load generator and one latency histogram for the lot.
    url: server.urls.length === 1 ? server.urls[0] : server.urls,
    method: 'POST',
    headers: server.headers,
    ...request,
    connections: CONNECTIONS,
    duration,
    // Every response must be a JSON-RPC result; anything else counts as a mismatch.
    verifyBody: (body) => body.includes('"result"') && !body.includes('"error"'),
  });
}

/**
 * One measured run; `warmup` seconds of load first (0: none). A `probe` ({ before(server),
 * after(server, state, autocannonResult) }) brackets the measured load only; what after()
 * returns is kept as the run's `observed`.
 */
export async function runScenario(server, name, { warmup, duration, probe }) {
  const request = await SCENARIOS[name].prepare(server);
  if (warmup > 0) await load(server, request, warmup);
  const state = probe && (await probe.before(server));
  const r = await load(server, request, duration);
  const observed = probe && (await probe.after(server, state, r));
  return {
    reqPerSec: r.requests.average,
    requests: r.requests.total,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.mean },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    mismatches: r.mismatches,
    failures: r.errors + r.timeouts + r.non2xx + r.mismatches,
    ...(observed !== undefined && { observed }),
  };
}

// ---------------------------------------------------------------- rounds, medians, ratios

export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Medians over rounds of one server/scenario's runs, plus the runs themselves. */
function summarize(runs) {
  const sum = (key) => runs.reduce((n, r) => n + r[key], 0);
  const reqPerSec = runs.map((r) => r.reqPerSec);
  return {
    reqPerSec: median(reqPerSec),
    reqPerSecMin: Math.min(...reqPerSec),
    reqPerSecMax: Math.max(...reqPerSec),
    latencyMs: { p50: median(runs.map((r) => r.latencyMs.p50)), p99: median(runs.map((r) => r.latencyMs.p99)) },
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    non2xx: sum('non2xx'),
    mismatches: sum('mismatches'),
    failures: sum('failures'),
    rounds: runs,
  };
}

const ratioKey = ({ of, to }) => `${of}/${to}`;
/** "a", "a first, then b", "a first, then b, then c". */
const describeOrder = ([first, ...rest]) => [rest.length ? `${first} first` : first, ...rest].join(', then ');

/**
 * Runs every scenario on every server, `rounds` times. `order` lists the servers as odd rounds
 * run them; even rounds run them in reverse. Only each server/scenario's first run (round 1)
 * is preceded by the warm-up. `comparisons` ([{ of, to }]) name the ratios taken per round
 * (of's req/s over to's) when both ran. Returns { runs, results, roundOrders, roundRatios,
 * failed }; roundRatios[`${of}/${to}`][scenario] holds one ratio per round.
 */
export async function runRounds({ servers, order, comparisons = [], settings, probe }) {
  const { rounds, warmup, duration } = settings;
  const scenarios = Object.keys(SCENARIOS);
  const runs = Object.fromEntries(order.map((name) => [name, Object.fromEntries(scenarios.map((s) => [s, []]))]));
  const active = comparisons.filter((c) => runs[c.of] && runs[c.to]);
  const roundRatios = Object.fromEntries(active.map((c) => [ratioKey(c), {}]));
  const roundOrders = [];
  let failed = false;

  for (let round = 1; round <= rounds; round++) {
    const roundOrder = round % 2 ? order : [...order].reverse();
    roundOrders.push(roundOrder);
    console.log(`
round ${round}/${rounds} (${describeOrder(roundOrder)})`);
    for (const scenario of scenarios) {
      for (const name of roundOrder) {
        process.stdout.write(`  ${scenario} on ${name} ... `);
        const r = await runScenario(servers[name], scenario, { warmup: round === 1 ? warmup : 0, duration, probe });
        runs[name][scenario].push(r);
        console.log(
          `${r.reqPerSec.toFixed(0)} req/s, p99 ${r.latencyMs.p99} ms` +
            (r.failures
              ? `  FAILED: errors=${r.errors} timeouts=${r.timeouts} non2xx=${r.non2xx} non-result bodies=${r.mismatches}`
              : ''),
        );
        if (r.failures) failed = true;
      }
      for (const c of active) {
        (roundRatios[ratioKey(c)][scenario] ??= []).push(
          runs[c.of][scenario].at(-1).reqPerSec / runs[c.to][scenario].at(-1).reqPerSec,
        );
      }
    }
    console.log(
      `round ${round}: ` +
        scenarios
          .map((scenario) => {
            const rates =
              `${scenario} ` +
              order.map((name) => `${name} ${runs[name][scenario].at(-1).reqPerSec.toFixed(0)}`).join(' / ') +
              ' req/s';
            const ratios = active.map(
              (c) =>
                `${roundRatios[ratioKey(c)][scenario].at(-1).toFixed(2)}x` +
                (active.length > 1 ? ` (${ratioKey(c)})` : ''),
            );
            return rates + (ratios.length ? ` = ${ratios.join(', ')}` : '');
          })
          .join('; '),
    );
  }

  const results = Object.fromEntries(
    order.map((name) => [
      name,
      Object.fromEntries(Object.entries(runs[name]).map(([scenario, r]) => [scenario, summarize(r)])),
    ]),
  );
  return { runs, results, roundOrders, roundRatios, failed };
}

/** The table of medians over the rounds. */
export function printTable(results, rounds) {
  console.log(`
medians over ${rounds} round(s) (min-max: range of req/s over rounds; errors: total)`);
  const rows = [['server', 'scenario', 'req/s', 'min-max', 'p50 ms', 'p99 ms', 'errors']];
  for (const [server, byScenario] of Object.entries(results)) {
    for (const [scenario, r] of Object.entries(byScenario)) {
      rows.push([
        server,
        scenario,
        r.reqPerSec.toFixed(0),
        `${r.reqPerSecMin.toFixed(0)}-${r.reqPerSecMax.toFixed(0)}`,
        String(r.latencyMs.p50),
        String(r.latencyMs.p99),
        String(r.failures),
      ]);
    }
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  for (const row of rows)
    console.log(row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
}

/**
 * Prints, per comparison that ran and scenario, the median of the per-round ratios against
 * its target (`targets[scenario]`, if any); returns { [`${of}/${to}`]: { [scenario]: ratio } }.
 * `label(c)` names a comparison in the output.
 */
export function reportRatios({ comparisons, roundRatios, targets, label = ratioKey }) {
  const ratios = {};
  for (const c of comparisons) {
    const perRound = roundRatios[ratioKey(c)];
    if (!perRound) continue;
    console.log('');
    const byScenario = (ratios[ratioKey(c)] = {});
    for (const scenario of Object.keys(SCENARIOS)) {
      const ratio = median(perRound[scenario]);
      byScenario[scenario] = ratio;
      const target = targets[scenario];
      const verdict = target ? `; target >= ${target}x: ${ratio >= target ? 'target met' : 'target NOT met'}` : '';
      const each = perRound[scenario].map((x) => `${x.toFixed(2)}x`).join(', ');
      console.log(`${scenario}: ${label(c)} = ${ratio.toFixed(2)}x  (median of per-round ${each}${verdict})`);
    }
  }
  return ratios;
}

/** What every results file opens with: the machine, the load and the rounds' order. */
export function runHeader({ settings, roundOrders, servers }) {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cores: os.cpus().length,
    connections: CONNECTIONS,
    durationSec: settings.duration,
    warmupSec: settings.warmup,
    rounds: settings.rounds,
    roundOrders,
    servers,
  };
}

/** The machine a run was on, first in its raw figures. */
export const runMachine = (loadStart) => ({
  date: new Date().toISOString(),
  node: process.version,
  cores: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  loadAverage: { start: loadStart, end: os.loadavg() },
});

/** A store bench's end: its raw figures written, and a non-zero exit when a check did not hold. */
export function finishChecked(file, data, results) {
  writeResults(file, data);
  if (results.some((r) => !r.ok)) {
    console.error('\nbench FAILED: a check did not hold (see above)');
    process.exitCode = 1;
  }
}

/** Runs a bench's main: a failure is said in one line, what it started is cleaned up, and it exits 1. */
export function runMain(main) {
  main().catch(async (err) => {
    console.error(`\nbench FAILED: ${err.message}`);
    await cleanUp();
    process.exit(1);
  });
}

/** Writes bench/results/<file> (pretty JSON) and says so. */
export function writeResults(file, data) {
  const outDir = path.join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, file), JSON.stringify(data, null, 2) + '\n');
  console.log(`\nraw figures: bench/results/${file}`);
}
