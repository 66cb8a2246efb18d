// Rounds of the SendMessage/GetTask drivers: every scenario on every server, the order alternating
// between rounds; medians over the rounds and the per-round ratios between servers.
import { median } from './figures.mjs';
import { runScenario, SCENARIOS } from './load.mjs';

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
