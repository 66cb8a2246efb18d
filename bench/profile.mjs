// Where the microseconds of one request go: CPU-profiles a Muster hub (SQLite, or PostgreSQL with
// --pg) under the bench's GetTask and SendMessage load, and bare node:http under the same GetTask
// load, then prints the CPU time per request of each part of the request path (profile-costs.mjs),
// side by side.
//
//   npm run build && node bench/profile.mjs [--pg]
//   env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3)
//
// Each server runs with --cpu-prof; only the samples taken during the measured load count. The
// profiler slows what it watches by a few percent, so read the parts against each other and
// against bare, not as absolute figures. Time a process spent waiting for a core while in a
// system call counts against that call: on a machine shared with the load generator, "socket
// writes" holds some of that.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import {
  benchSettings,
  benchTmp,
  freePort,
  runMain,
  runScenario,
  startChild,
  startMuster,
  writeResults,
  cleanUp,
  connectPgAdmin,
  freshDatabase,
} from './lib.mjs';
import { costsPerRequest } from './profile-costs.mjs';

const profiled = (name) => ['--cpu-prof', '--cpu-prof-dir', path.join(benchTmp(), `profile-${name}`)];
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** bench/bare-server.mjs, profiled. */
async function startBare() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startChild('bare', [...profiled('bare'), 'bench/bare-server.mjs', String(port)], {}, base);
  return { urls: [base], headers: { 'Content-Type': 'application/json' }, pids: [child.pid], stop: child.stop };
}

/** Runs one scenario, noting when its measured load began and ended. */
async function measured(server, scenario, settings) {
  const window = {};
  const probe = {
    before: () => (window.from = nowUs()),
    after: (_server, _state, result) => Object.assign(window, { to: nowUs(), requests: result.requests.total }),
  };
  const run = await runScenario(server, scenario, { ...settings, probe });
  if (run.failures) throw new Error(`${scenario}: ${run.failures} failed requests`);
  return { ...window, reqPerSec: run.reqPerSec };
}

const profileIn = (name) => {
  const dir = path.join(benchTmp(), `profile-${name}`);
  return path.join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
  );
};

function printCosts(columns) {
  const names = Object.keys(columns);
  const parts = [...new Set(names.flatMap((n) => Object.keys(columns[n].costs)))].filter((p) => p !== 'idle');
  const busy = (n) => parts.reduce((sum, p) => sum + (columns[n].costs[p] ?? 0), 0);
  parts.sort((a, b) => (columns[names[0]].costs[b] ?? 0) - (columns[names[0]].costs[a] ?? 0));
  const cell = (x) => (x === undefined ? '' : x.toFixed(1));
  console.log(
    `\nCPU µs per request (${names.map((n) => `${n}: ${columns[n].reqPerSec.toFixed(0)} req/s`).join('; ')})`,
  );
  console.log(`| part | ${names.join(' | ')} |\n| --- |${names.map(() => ' ---: |').join('')}`);
  for (const part of parts) console.log(`| ${part} | ${names.map((n) => cell(columns[n].costs[part])).join(' | ')} |`);
  console.log(`| **all (not idle)** | ${names.map((n) => `**${busy(n).toFixed(1)}**`).join(' | ')} |`);
}

async function main() {
  const { warmup, duration } = benchSettings();
  const settings = { warmup, duration };
  const columns = {};
  const pg = process.argv.includes('--pg');
  const db = pg
    ? (await freshDatabase((await connectPgAdmin()).admin, 'profile')).url
    : `sqlite:${path.join(benchTmp(), 'profile.db')}`;
  const muster = await startMuster({
    db,
    nodeArgs: profiled('muster'),
  });
  const windows = {
    'Muster GetTask': await measured(muster, 'GetTask', settings),
    'Muster SendMessage': await measured(muster, 'SendMessage', settings),
  };
  await muster.stop(); // the profile is written as the process exits
  for (const [name, window] of Object.entries(windows))
    columns[name] = { reqPerSec: window.reqPerSec, costs: costsPerRequest(profileIn('muster'), window) };

  const bare = await startBare();
  const bareWindow = await measured(bare, 'GetTask', settings);
  await bare.stop();
  columns['bare GetTask'] = { reqPerSec: bareWindow.reqPerSec, costs: costsPerRequest(profileIn('bare'), bareWindow) };

  printCosts(columns);
  writeResults(pg ? 'profile-pg.json' : 'profile.json', { settings, columns });
  await cleanUp(); // drops the PostgreSQL database, closes the admin connection
}

runMain(main);
