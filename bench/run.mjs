// Muster benchmark driver: SendMessage and GetTask throughput / latency on Muster
// and on the SDK reference server (bench/reference-server.mjs), never both loaded at once.
//
//   node bench/run.mjs [--only muster|reference]
//   env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_ROUNDS (default 3)
//
// Both servers are started once and kept alive. Each round runs every scenario on
// both servers back to back (Muster first in odd rounds, the reference first in even
// ones); the ratio reported is the median of the per-round ratios, so slow drift of
// the machine's speed between rounds does not skew it. The machinery is in lib.mjs,
// shared with postgres.mjs.
//
// Exit code is non-zero only when something failed (server did not start, a
// request was answered with an error, ...), never because the target was missed.
import path from 'node:path';
import {
  benchSettings,
  benchTmp,
  describeSettings,
  printTable,
  reportRatios,
  runHeader,
  runRounds,
  startMuster,
  startReference,
  writeResults,
} from './lib.mjs';

const TARGET_RATIO = 2;

const SERVERS = {
  reference: {
    label: 'reference (SDK DefaultRequestHandler + InMemoryTaskStore + express)',
    start: () => startReference(),
  },
  muster: {
    label: 'muster (sqlite, MUSTER_RATE_LIMITS=off)',
    start: () => startMuster({ db: `sqlite:${path.join(benchTmp(), 'bench.db')}` }),
  },
};
const COMPARISON = { of: 'muster', to: 'reference' };

function parseOnly(argv) {
  const i = argv.indexOf('--only');
  const only = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--only='))?.slice(7);
  if (only && !SERVERS[only]) throw new Error(`--only must be one of: ${Object.keys(SERVERS).join(', ')}`);
  return only ? [only] : ['muster', 'reference'];
}

async function main() {
  const serverNames = parseOnly(process.argv.slice(2));
  const settings = benchSettings();
  console.log(describeSettings(settings));
  if (serverNames.includes('muster'))
    console.log('note: Muster runs with MUSTER_RATE_LIMITS=off (per-pair/inbox rate limits disabled)');

  // Both servers are started once, up front, and stay up (idle while the other is loaded).
  const servers = {};
  let outcome;
  try {
    for (const name of serverNames) {
      console.log(`starting ${SERVERS[name].label}`);
      servers[name] = await SERVERS[name].start();
    }
    outcome = await runRounds({ servers, order: serverNames, comparisons: [COMPARISON], settings });
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
  const { results, roundOrders, roundRatios, failed } = outcome;

  printTable(results, settings.rounds);
  const ratios =
    reportRatios({
      comparisons: [COMPARISON],
      roundRatios,
      label: () => 'Muster/reference',
      targets: { SendMessage: TARGET_RATIO, GetTask: TARGET_RATIO },
    })['muster/reference'] ?? {};
  const perRound = roundRatios['muster/reference'] ?? {};

  writeResults('latest.json', {
    ...runHeader({ settings, roundOrders, servers: serverNames }),
    musterEnv: { MUSTER_RATE_LIMITS: 'off' },
    results, // per server/scenario: medians over rounds, and `rounds`: every run
    ratios, // per scenario: median of roundRatios
    roundRatios: perRound,
    targetRatio: TARGET_RATIO,
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
