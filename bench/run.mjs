// Muster benchmark driver: SendMessage and GetTask throughput / latency on Muster
// and on the SDK reference server (bench/reference-server.mjs), never both loaded at once.
//
//   node bench/run.mjs [--only muster|reference]
//   env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_ROUNDS (default 3)
//
// Both servers are started once and kept alive. Each round runs every scenario on
// both servers back to back (Muster first in odd rounds, the reference first in even
// ones); the ratio reported is the median of the per-round ratios, so slow drift of
// the machine's speed between rounds does not skew it.
//
// Exit code is non-zero only when something failed (server did not start, a
// request was answered with an error, ...), never because the target was missed.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from './lib.mjs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_RATIO = 2;
const ADMIN_TOKEN = 'bench-admin';
const A2A_HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

// ---------------------------------------------------------------- child processes

const children = new Set();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'muster-bench-'));

function killChildren() {
  for (const c of children) c.kill('SIGKILL');
}
process.on('exit', () => {
  killChildren();
  rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

/** Starts `node <args>` with output going to a log file; resolves once `readyUrl` answers 200. */
async function startChild(name, args, env, readyUrl) {
  const log = path.join(tmp, `${name}.log`);
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  children.add(child);
  let exited = null;
  child.on('exit', (code, sig) => { exited = sig ?? code; children.delete(child); });
  const tail = () => readFileSync(log, 'utf8').split('\n').slice(-20).join('\n');

  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before becoming ready:\n${tail()}`);
    try {
      if ((await fetch(readyUrl)).status === 200) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (exited === null && Date.now() >= deadline) throw new Error(`${name} not ready after 20 s (${readyUrl}):\n${tail()}`);

  return async function stop() {
    if (exited !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
}

// ---------------------------------------------------------------- the two servers
// Each start() returns { url, headers, sendConfiguration?, stop }: the JSON-RPC endpoint
// and the headers every request carries.

const SERVERS = {
  reference: {
    label: 'reference (SDK DefaultRequestHandler + InMemoryTaskStore + express)',
    async start() {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const stop = await startChild('reference', ['bench/reference-server.mjs', String(port)], {},
        `${base}/.well-known/agent-card.json`);
      // returnImmediately: answer after the first (SUBMITTED task) event, like Muster.
      return { url: `${base}/a2a/jsonrpc`, headers: A2A_HEADERS, sendConfiguration: { returnImmediately: true }, stop };
    },
  },
  muster: {
    label: 'muster (sqlite, MUSTER_RATE_LIMITS=off)',
    async start() {
      const main = path.join(ROOT, 'dist/cli/main.js');
      if (!existsSync(main)) throw new Error(`${main} not found: run "npm run build" first (or use --only reference)`);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const stop = await startChild('muster',
        [main, 'serve', '--port', String(port), '--db', `sqlite:${path.join(tmp, 'bench.db')}`],
        { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, MUSTER_RATE_LIMITS: 'off' },
        `${base}/health`);
      try {
        const register = async (handle) => {
          const res = await fetch(`${base}/api/agents`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_TOKEN}` },
            body: JSON.stringify({ handle }),
          });
          const body = await res.text();
          if (res.status !== 201) throw new Error(`POST /api/agents ${handle}: HTTP ${res.status} ${body}`);
          return JSON.parse(body);
        };
        const sender = await register('bench-sender');
        await register('bench-target');
        return {
          url: `${base}/agents/bench-target/`,
          headers: { ...A2A_HEADERS, Authorization: `Bearer ${sender.token}` },
          stop,
        };
      } catch (err) {
        await stop();
        throw err;
      }
    },
  },
};

// ---------------------------------------------------------------- scenarios

const rpc = (method, params) => ({ jsonrpc: '2.0', id: 1, method, params });
const sendMessage = (server, messageId) => rpc('SendMessage', {
  message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
  ...(server.sendConfiguration && { configuration: server.sendConfiguration }),
});

/** One JSON-RPC call with fetch; returns `result` or throws with the server's answer. */
async function call(server, body) {
  const res = await fetch(server.url, { method: 'POST', headers: server.headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { /* reported below */ }
  if (res.status !== 200 || !json || json.error || json.result === undefined) {
    throw new Error(`${body.method} sample failed: HTTP ${res.status} ${text.slice(0, 500)}`);
  }
  return json.result;
}

// Each scenario's prepare() checks one real response and returns the autocannon request.
const SCENARIOS = {
  SendMessage: {
    async prepare(server) {
      const result = await call(server, sendMessage(server, `m-sample-${randomUUID()}`));
      if (!result.task?.id) throw new Error(`SendMessage sample has no result.task.id: ${JSON.stringify(result)}`);
      // "[<id>]" is replaced by autocannon (idReplacement) so every messageId is unique.
      return { body: JSON.stringify(sendMessage(server, 'm-[<id>]')), idReplacement: true };
    },
  },
  GetTask: {
    async prepare(server) {
      const { task } = await call(server, sendMessage(server, `m-gettask-${randomUUID()}`));
      const body = rpc('GetTask', { id: task.id });
      const got = await call(server, body);
      if (got.id !== task.id) throw new Error(`GetTask sample returned another task: ${JSON.stringify(got)}`);
      return { body: JSON.stringify(body), idReplacement: false };
    },
  },
};

function load(server, request, duration) {
  return autocannon({
    url: server.url,
    method: 'POST',
    headers: server.headers,
    ...request,
    connections: CONNECTIONS,
    duration,
    // Every response must be a JSON-RPC result; anything else counts as a mismatch.
    verifyBody: (body) => body.includes('"result"') && !body.includes('"error"'),
  });
}

/** One measured run; `warmup` seconds of load first (0: none). */
async function runScenario(server, name, warmup) {
  const request = await SCENARIOS[name].prepare(server);
  if (warmup > 0) await load(server, request, warmup);
  const r = await load(server, request, DURATION);
  return {
    reqPerSec: r.requests.average,
    requests: r.requests.total,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.mean },
    errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx, mismatches: r.mismatches,
    failures: r.errors + r.timeouts + r.non2xx + r.mismatches,
  };
}

function median(values) {
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
    errors: sum('errors'), timeouts: sum('timeouts'), non2xx: sum('non2xx'), mismatches: sum('mismatches'),
    failures: sum('failures'),
    rounds: runs,
  };
}

// ---------------------------------------------------------------- main

function parseOnly(argv) {
  const i = argv.indexOf('--only');
  const only = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--only='))?.slice(7);
  if (only && !SERVERS[only]) throw new Error(`--only must be one of: ${Object.keys(SERVERS).join(', ')}`);
  return only ? [only] : ['muster', 'reference'];
}

function printTable(results) {
  const rows = [['server', 'scenario', 'req/s', 'min-max', 'p50 ms', 'p99 ms', 'errors']];
  for (const [server, byScenario] of Object.entries(results)) {
    for (const [scenario, r] of Object.entries(byScenario)) {
      rows.push([server, scenario, r.reqPerSec.toFixed(0), `${r.reqPerSecMin.toFixed(0)}-${r.reqPerSecMax.toFixed(0)}`,
        String(r.latencyMs.p50), String(r.latencyMs.p99), String(r.failures)]);
    }
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  for (const row of rows) console.log(row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
}

async function main() {
  const serverNames = parseOnly(process.argv.slice(2));
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`BENCH_ROUNDS must be a positive integer, got "${process.env.BENCH_ROUNDS}"`);
  console.log(`bench: ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${DURATION} s per run ` +
    `(${WARMUP > 0 ? `${WARMUP} s warm-up before each server/scenario's first run only` : 'no warm-up'}), ` +
    `node ${process.version}, ${os.cpus().length} cores, load generator in this process`);
  if (serverNames.includes('muster')) console.log('note: Muster runs with MUSTER_RATE_LIMITS=off (per-pair/inbox rate limits disabled)');

  // Both servers are started once, up front, and stay up (idle while the other is loaded).
  const servers = {};
  const runs = {}; // runs[server][scenario] = [one result per round]
  const roundRatios = {}; // roundRatios[scenario] = [Muster/reference per round]
  const roundOrders = [];
  let failed = false;
  try {
    for (const name of serverNames) {
      console.log(`starting ${SERVERS[name].label}`);
      servers[name] = await SERVERS[name].start();
      runs[name] = Object.fromEntries(Object.keys(SCENARIOS).map((scenario) => [scenario, []]));
    }

    for (let round = 1; round <= ROUNDS; round++) {
      // Muster first in odd rounds, the reference first in even rounds.
      const order = round % 2 ? serverNames : [...serverNames].reverse();
      roundOrders.push(order);
      console.log(`
round ${round}/${ROUNDS} (${order.join(' first, then ')})`);
      for (const scenario of Object.keys(SCENARIOS)) {
        for (const name of order) {
          process.stdout.write(`  ${scenario} on ${name} ... `);
          const r = await runScenario(servers[name], scenario, round === 1 ? WARMUP : 0);
          runs[name][scenario].push(r);
          console.log(`${r.reqPerSec.toFixed(0)} req/s, p99 ${r.latencyMs.p99} ms` +
            (r.failures ? `  FAILED: errors=${r.errors} timeouts=${r.timeouts} non2xx=${r.non2xx} non-result bodies=${r.mismatches}` : ''));
          if (r.failures) failed = true;
        }
        if (runs.muster && runs.reference) {
          const ratio = runs.muster[scenario].at(-1).reqPerSec / runs.reference[scenario].at(-1).reqPerSec;
          (roundRatios[scenario] ??= []).push(ratio);
        }
      }
      console.log(`round ${round}: ` + Object.keys(SCENARIOS).map((scenario) =>
        `${scenario} ` + serverNames.map((name) => `${name} ${runs[name][scenario].at(-1).reqPerSec.toFixed(0)}`).join(' / ') +
        (roundRatios[scenario] ? ` req/s = ${roundRatios[scenario].at(-1).toFixed(2)}x` : ' req/s')).join('; '));
    }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }

  const results = {};
  for (const name of serverNames) {
    results[name] = Object.fromEntries(Object.entries(runs[name]).map(([scenario, r]) => [scenario, summarize(r)]));
  }
  console.log(`
medians over ${ROUNDS} round(s) (min-max: range of req/s over rounds; errors: total)`);
  printTable(results);

  const ratios = {};
  if (results.muster && results.reference) {
    console.log('');
    for (const scenario of Object.keys(SCENARIOS)) {
      const ratio = median(roundRatios[scenario]);
      ratios[scenario] = ratio;
      console.log(`${scenario}: Muster/reference = ${ratio.toFixed(2)}x  ` +
        `(median of per-round ${roundRatios[scenario].map((x) => `${x.toFixed(2)}x`).join(', ')}; ` +
        `target >= ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? 'target met' : 'target NOT met'})`);
    }
  }

  const outDir = path.join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'latest.json'), JSON.stringify({
    date: new Date().toISOString(),
    node: process.version,
    cores: os.cpus().length,
    connections: CONNECTIONS,
    durationSec: DURATION,
    warmupSec: WARMUP,
    rounds: ROUNDS,
    roundOrders,
    servers: serverNames,
    musterEnv: { MUSTER_RATE_LIMITS: 'off' },
    results, // per server/scenario: medians over rounds, and `rounds`: every run
    ratios, // per scenario: median of roundRatios
    roundRatios,
    targetRatio: TARGET_RATIO,
  }, null, 2) + '\n');
  console.log(`\nraw figures: bench/results/latest.json`);
  if (failed) {
    console.error('\nbench FAILED: some requests were not answered with a JSON-RPC result (see errors column)');
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(`\nbench FAILED: ${err.message}`);
  process.exit(1); // the 'exit' handler kills any child still running
});
