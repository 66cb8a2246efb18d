// The figures bench/compare.mjs measures on both builds, and how it reports them: each round's
// ratio (working tree / base), their median, and a markdown table for an issue's note.
import { median } from './lib.mjs';

/**
 * A figure measured once per round on each build: `better` says which way is an improvement
 * ('higher' for throughput, 'lower' for latency and memory); `decimals` how it prints.
 */
export function figure(label, unit, better, decimals = 0) {
  return { label, unit, better, decimals, base: [], wt: [] };
}

/** The per-round ratios working tree / base, for the rounds both builds were measured in. */
const ratios = (f) => f.wt.map((wt, i) => wt / f.base[i]).filter(Number.isFinite);
const x = (r) => `${r.toFixed(2)}x`;
const better = (f) => `${f.better} is better`;

/** The round's ratios, on one line. */
export function printRoundRatios(round, figures) {
  const parts = figures.filter((f) => f.wt.length === round && f.base.length === round);
  const line = parts.map(
    (f) => `${f.label} ${x(f.wt.at(-1) / f.base.at(-1))}${f.better === 'lower' ? ' (lower is better)' : ''}`,
  );
  console.log(`round ${round}, working tree / base: ${line.join('; ')}`);
}

/** Per figure: the per-round ratios and their median, whether it is better or worse. */
export function printSummary(figures) {
  console.log('\nworking tree / base, per round and median (>1 is better where higher is better, <1 where lower is):');
  for (const f of figures) {
    const r = ratios(f);
    if (!r.length) continue;
    const m = median(r);
    const verdict = m === 1 ? 'same' : m > 1 === (f.better === 'higher') ? 'better' : 'worse';
    console.log(`  ${f.label} (${f.unit}, ${better(f)}): median ${x(m)} (${verdict}); rounds ${r.map(x).join(', ')}`);
  }
}

/** The markdown table: medians of each build's figures, the median ratio and the rounds' ratios. */
export function markdownTable(figures, { base, rounds, duration }) {
  const n = (f, v) => (v.length ? median(v).toFixed(f.decimals) : '-');
  const rows = figures
    .filter((f) => ratios(f).length)
    .map(
      (f) =>
        `| ${f.label} | ${f.unit}, ${better(f)} | ${n(f, f.base)} | ${n(f, f.wt)} | ` +
        `${x(median(ratios(f)))} | ${ratios(f).map(x).join(', ')} |`,
    );
  return [
    `\`npm run bench:compare -- ${base.ref}\`: base ${base.sha.slice(0, 10)} (${base.subject}) against the working tree, ` +
      `${rounds} round(s) interleaved, ${duration} s per throughput run; figures are medians over the rounds.`,
    '',
    `| figure | unit | base ${base.sha.slice(0, 7)} | working tree | working tree / base (median) | per round |`,
    '| --- | --- | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}
