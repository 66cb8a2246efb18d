// Figures from measurements: medians, percentiles, latency summaries and the CPU time of a process.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The middle of `values`: the mean of the two middle ones when there are an even number. */
export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
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
