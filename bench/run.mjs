// Muster benchmark driver: SendMessage and GetTask throughput / latency on Muster, on the SDK
// reference server (bench/reference-server.mjs) and on bare node:http answering a fixed body
// (bench/bare-server.mjs), never two loaded at once.
//
//   node bench/run.mjs [--only muster,reference,bare]
//   env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_ROUNDS (default 3)
//
// The servers are started once and kept alive. Each round runs every scenario on each
// server back to back (reference, Muster, bare in odd rounds, the reverse in even ones, so
// Muster is next to both it is compared with); a ratio reported is the median of the
// per-round ratios, so slow drift of the machine's speed between rounds does not skew it. The machinery is in lib.mjs,
// shared with postgres.mjs.
//
// Exit code is non-zero only when something failed (server did not start, a
// request was answered with an error, ...), never because the target was missed.
import path from 'node:path';
import {
  benchSettings,
  benchTmp,
  describeSettings,
  freePort,
  parseOnly,
  printTable,
  reportRatios,
  runHeader,
  runRounds,
  startChild,
  startMuster,
  startReference,
  writeResults,
} from './lib.mjs';

// Issue 34's goals: Muster at least this many times the reference, and this share of bare node:http.
const TARGETS = {
  reference: { SendMessage: 3, GetTask: 4 },
  bare: { GetTask: 0.35 },
};

/** bench/bare-server.mjs as a bench server. */
async function startBare() {
  const base = `http://127.0.0.1:${await freePort()}`;
  const child = await startChild('bare', ['bench/bare-server.mjs', new URL(base).port], {}, base);
  return { urls: [base], headers: { 'Content-Type': 'application/json' }, pids: [child.pid], stop: child.stop };
}

const SERVERS = {
  reference: {
    label: 'reference (SDK DefaultRequestHandler + InMemoryTaskStore + express)',
    start: () => startReference(),
  },
  muster: {
    label: 'muster (sqlite, MUSTER_RATE_LIMITS=off)',
    start: () => startMuster({ db: `sqlite:${path.join(benchTmp(), 'bench.db')}` }),
  },
  bare: { label: 'bare (node:http, a fixed GetTask-sized answer)', start: startBare },
};
const COMPARISONS = Object.keys(TARGETS).map((to) => ({ of: 'muster', to }));

async function main() {
  const serverNames = parseOnly(process.argv.slice(2), Object.keys(SERVERS));
  const settings = benchSettings();
  console.log(describeSettings(settings));
  if (serverNames.includes('muster'))
    console.log('note: Muster runs with MUSTER_RATE_LIMITS=off (per-pair/inbox rate limits disabled)');

  // The servers are started once, up front, and stay up (idle while another is loaded).
  const servers = {};
  let outcome;
  try {
    for (const name of serverNames) {
      console.log(`starting ${SERVERS[name].label}`);
      servers[name] = await SERVERS[name].start();
    }
    outcome = await runRounds({ servers, order: serverNames, comparisons: COMPARISONS, settings });
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
  const { results, roundOrders, roundRatios, failed } = outcome;

  printTable(results, settings.rounds);
  const ratios = {};
  for (const c of COMPARISONS) {
    const label = () => `Muster/${c.to}`;
    Object.assign(ratios, reportRatios({ comparisons: [c], roundRatios, label, targets: TARGETS[c.to] }));
  }

  writeResults('latest.json', {
    ...runHeader({ settings, roundOrders, servers: serverNames }),
    musterEnv: { MUSTER_RATE_LIMITS: 'off' },
    results, // per server/scenario: medians over rounds, and `rounds`: every run
    ratios, // per comparison ('muster/reference', 'muster/bare') and scenario: median of roundRatios
    roundRatios,
    targets: TARGETS, // per server Muster is compared with
  });
  if (failed) {
    console.error('\nbench FAILED: some requests were not answered with a JSON-RPC result (see errors column)');
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(`\nbench FAILED: ${err.message}`);
  process.exit(1); // the 'exit' handler kills any child still running
});
