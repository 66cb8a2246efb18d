// The regression guard: the working tree against a base commit, A/B in one run.
//
//   npm run bench:compare [-- [base-ref] [--rounds N] [--duration S] [--only sqlite,pg,fanout]]
//   base-ref: any git revision (default HEAD); rounds default BENCH_ROUNDS or 3, duration (s per
//   throughput run) BENCH_DURATION or 10, warm-up BENCH_WARMUP or 3; FANOUT_SUBSCRIBERS and
//   FANOUT_EVENTS pass through to bench/fanout.mjs (defaults 1000 and 50).
//
// The base is unpacked and built in <tmp>/muster-bench-<sha> (compare-base.mjs), the working tree
// is built in place; then both are measured, every round: SendMessage and GetTask on SQLite,
// SendMessage on PostgreSQL (one hub), and SSE fan-out (delivery p99, memory per subscriber). The
// base goes first in odd rounds and the working tree in even ones, so neither always gets the
// fresher slot; each figure's ratio is taken per round (working tree / base), and the median of
// those is what to quote, with the markdown table printed at the end. A tool for people: the
// exit code is non-zero only when something failed, never because a figure got worse.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildWorkingTree, describeWorkingTree, prepareBase, resolveRef } from './compare-base.mjs';
import { runFanout } from './compare-fanout.mjs';
import { figure, markdownTable, printRoundRatios, printSummary } from './compare-report.mjs';
import {
  benchSettings,
  benchTmp,
  cleanUp,
  connectPgAdmin,
  describeSettings,
  freshDatabase,
  parseOnly,
  ROOT,
  runMachine,
  runMain,
  runScenario,
  startMuster,
  writeResults,
} from './lib.mjs';

const GROUPS = ['sqlite', 'pg', 'fanout'];
const SIDES = ['base', 'wt']; // A and B: odd rounds run them in this order, even rounds reversed
const NAMES = { base: 'base', wt: 'working tree' };

function options(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { rounds: { type: 'string' }, duration: { type: 'string' }, only: { type: 'string' } },
  });
  if (positionals.length > 1) throw new Error(`one base ref at most, got: ${positionals.join(' ')}`);
  const settings = benchSettings({
    ...process.env,
    ...(values.rounds && { BENCH_ROUNDS: values.rounds }),
    ...(values.duration && { BENCH_DURATION: values.duration }),
  });
  const groups = parseOnly(values.only ? ['--only', values.only] : [], GROUPS);
  return { ref: positionals[0] ?? 'HEAD', settings, groups };
}

/** The throughput servers of each group: one Muster hub per build, started once and kept up. */
async function startServers(groups, roots) {
  const servers = {};
  let admin;
  if (groups.includes('pg')) ({ admin } = await connectPgAdmin());
  for (const group of groups.filter((g) => g !== 'fanout')) {
    servers[group] = {};
    for (const side of SIDES) {
      const db =
        group === 'sqlite' ? `sqlite:${path.join(benchTmp(), `${side}.db`)}` : (await freshDatabase(admin, side)).url;
      console.log(`starting ${group} hub of the ${NAMES[side]}`);
      servers[group][side] = await startMuster({ name: `${group}-${side}`, db, root: roots[side] });
    }
  }
  return servers;
}

/** What each group measures, as { key: figure }. */
function makeFigures(groups) {
  const all = {
    sqlite: {
      'sqlite SendMessage': figure('SQLite SendMessage', 'req/s', 'higher'),
      'sqlite GetTask': figure('SQLite GetTask', 'req/s', 'higher'),
    },
    pg: { 'pg SendMessage': figure('PostgreSQL SendMessage (one hub)', 'req/s', 'higher') },
    fanout: {
      'fanout p99': figure('fan-out delivery p99', 'ms', 'lower', 1),
      'fanout p99 again': figure('fan-out delivery p99, second fan-out of the hub', 'ms', 'lower', 1),
      'fanout KB': figure('fan-out memory per subscriber', 'KB', 'lower', 1),
      'fanout KB again': figure('fan-out memory per subscriber, second fan-out of the hub', 'KB', 'lower', 1),
    },
  };
  return Object.assign({}, ...groups.map((g) => all[g]));
}

/** One throughput run of `scenario` on one build's hub; answers whether it failed. */
async function measureThroughput(server, scenario, fig, side, runSettings) {
  process.stdout.write(`  ${fig.label} on the ${NAMES[side]} ... `);
  const r = await runScenario(server, scenario, runSettings);
  fig[side].push(r.reqPerSec);
  const counts = `errors=${r.errors} timeouts=${r.timeouts} non2xx=${r.non2xx} non-result bodies=${r.mismatches}`;
  console.log(`${r.reqPerSec.toFixed(0)} req/s, p99 ${r.latencyMs.p99} ms${r.failures ? `  FAILED: ${counts}` : ''}`);
  return r.failures > 0;
}

/** One fan-out run on one build; answers the problems it reported. */
async function measureFanout(figures, side, root) {
  process.stdout.write(`  fan-out on the ${NAMES[side]} ... `);
  const r = await runFanout(side, root);
  figures['fanout p99'][side].push(r.p99Ms);
  figures['fanout p99 again'][side].push(r.p99AgainMs);
  figures['fanout KB'][side].push(r.kbPerSubscriber);
  figures['fanout KB again'][side].push(r.kbPerSubscriberAgain);
  const size = `${r.config.subscribers} subscribers × ${r.config.events} events`;
  figures['fanout p99'].label = `fan-out delivery p99, ${size}`;
  figures['fanout p99 again'].label = `the same, the hub's second fan-out`;
  figures['fanout KB again'].label = `the same, the hub's second fan-out`;
  console.log(
    `delivery p99 ${r.p99Ms} ms (the second fan-out ${r.p99AgainMs} ms), ${r.kbPerSubscriber} KB per subscriber (the second fan-out ${r.kbPerSubscriberAgain} KB) (${size})`,
  );
  for (const p of r.problems.slice(0, 5)) console.log(`    problem: ${p}`);
  return r.problems;
}

async function main() {
  const loadStart = os.loadavg();
  const { ref, settings, groups } = options(process.argv.slice(2));
  const base = resolveRef(ref);
  console.log(
    `bench:compare: base ${ref} = ${base.sha.slice(0, 10)} (${base.subject}) against the ${describeWorkingTree()}`,
  );
  const roots = { base: prepareBase(base), wt: ROOT };
  buildWorkingTree();
  console.log(`${describeSettings(settings)}; measuring: ${groups.join(', ')}`);
  if (groups.includes('fanout') && (process.env.FANOUT_SUBSCRIBERS || process.env.FANOUT_EVENTS))
    console.log('note: fan-out runs with FANOUT_SUBSCRIBERS/FANOUT_EVENTS from the environment, not the full size');

  const figures = makeFigures(groups);
  let servers = {};
  let failed = false;
  const roundOrders = [];
  try {
    servers = await startServers(groups, roots);
    for (let round = 1; round <= settings.rounds; round++) {
      const order = round % 2 ? SIDES : [...SIDES].reverse();
      roundOrders.push(order);
      console.log(`\nround ${round}/${settings.rounds} (${order.map((s) => NAMES[s]).join(' first, then ')})`);
      const runSettings = { warmup: round === 1 ? settings.warmup : 0, duration: settings.duration };
      for (const scenario of groups.includes('sqlite') ? ['SendMessage', 'GetTask'] : []) {
        for (const side of order)
          failed =
            (await measureThroughput(
              servers.sqlite[side],
              scenario,
              figures[`sqlite ${scenario}`],
              side,
              runSettings,
            )) || failed;
      }
      for (const side of groups.includes('pg') ? order : [])
        failed =
          (await measureThroughput(servers.pg[side], 'SendMessage', figures['pg SendMessage'], side, runSettings)) ||
          failed;
      for (const side of groups.includes('fanout') ? order : [])
        failed = (await measureFanout(figures, side, roots[side])).length > 0 || failed;
      printRoundRatios(round, Object.values(figures));
    }
  } finally {
    await Promise.all(Object.values(servers).flatMap((bySide) => Object.values(bySide).map((s) => s.stop())));
    await cleanUp(); // drops the PostgreSQL databases
  }

  printSummary(Object.values(figures));
  const table = markdownTable(Object.values(figures), { base, rounds: settings.rounds, duration: settings.duration });
  console.log(`\nfor the note:\n\n${table}`);
  writeResults('compare.json', {
    ...runMachine(loadStart),
    base,
    settings,
    roundOrders,
    figures, // per figure: each build's value in every round (`base`, `wt`)
    table,
  });
  if (failed) {
    console.error('\nbench:compare FAILED: some runs had failed requests or fan-out problems (see above)');
    process.exitCode = 1;
  }
}

runMain(main);
