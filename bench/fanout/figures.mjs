// The fan-out bench's figures: latency summaries, their rounding for the results file, and how
// they are printed.

/** The nearest-rank percentile `p` (0-100) of `sorted` (ascending); NaN when empty. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** count, p50, p90, p99, max and mean of `values`. */
export const stats = (values) => {
  const s = Float64Array.from(values).sort();
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    count: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? NaN,
    mean: s.length ? sum / s.length : NaN,
  };
};
/** Milliseconds as text for the output ("-" when not a number). */
export const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : '-');
/** `v` to `d` decimals for the results file (null when not a number). */
export const round = (v, d = 2) => (Number.isFinite(v) ? Number(v.toFixed(d)) : null);
/** A stats() summary rounded for the results file. */
export const roundStats = (s) =>
  Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'count' ? v : round(v)]));
/** kB as MB, for the output. */
export const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;
