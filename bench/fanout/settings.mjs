// The fan-out bench's settings (FANOUT_* and BENCH_* in its environment, see bench/fanout.mjs),
// read at import, and the open-files limit they must fit.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The clone the bench runs in (bench/fanout/ is two levels below it). */
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The checkout whose dist/ is run. */
export const ROOT = process.env.BENCH_MUSTER_ROOT ?? HERE;
export const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? path.join(HERE, 'bench/results');
const int = (name, dflt) => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`);
  return n;
};
export const N = int('FANOUT_SUBSCRIBERS', 1000);
export const K = int('FANOUT_EVENTS', 50);
export const INTERVAL_MS = int('FANOUT_INTERVAL_MS', 100);
export const CONNECT_CONCURRENCY = Math.max(1, int('FANOUT_CONNECT_CONCURRENCY', 100));
export const COST_TASKS = int('FANOUT_COST_TASKS', 2000);
export const COST_CONCURRENCY = Math.max(1, int('FANOUT_COST_CONCURRENCY', 50));
export const COST_ROUNDS = int('FANOUT_COST_ROUNDS', 3);
export const SKIP_COST = process.env.FANOUT_SKIP_COST === '1';
export const ADMIN_TOKEN = 'bench-admin';
/** The agent every stream and SendMessage goes to. */
export const TARGET_PATH = '/agents/fanout-target/';
/** The text of the k-th WORKING update. */
export const TEXT = (k) => `fanout update ${k}`;

/** This process's open-files limit, { soft, hard }; undefined when /proc says nothing. */
export function openFilesLimit() {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const [soft, hard] = line.replace('Max open files', '').trim().split(/\s+/);
    return {
      soft: soft === 'unlimited' ? Infinity : Number(soft),
      hard: hard === 'unlimited' ? Infinity : Number(hard),
    };
  } catch {
    return undefined;
  }
}

/** Exits (code 2, saying how to raise the limit) when N subscribers need more open files than allowed. */
export function checkOpenFiles() {
  // The driver holds N client sockets, Muster N server sockets (each process has its own limit,
  // inherited from this shell); allow some room for the database, logs, the cost part etc.
  const limit = openFilesLimit();
  const needed = N + Math.max(COST_CONCURRENCY * 2, 100) + 100;
  if (limit && limit.soft < needed) {
    // Node raises its own soft limit to the hard limit at start-up, so what is read here is
    // already as high as this process can go: only the hard limit (ulimit -Hn) matters.
    console.error(
      `fanout: ${N} subscribers need about ${needed} open files per process, but this process may open only ${limit.soft} (hard limit ${limit.hard}; node raises its soft limit to the hard one by itself).`,
    );
    console.error(
      `Raise the hard limit before starting node (e.g. "ulimit -Hn ${Math.max(needed, 4096)} && ulimit -n ${Math.max(needed, 4096)}" as root, or LimitNOFILE= / limits.conf for a service), or lower FANOUT_SUBSCRIBERS to at most ${Math.max(0, limit.soft - (needed - N))}.`,
    );
    process.exit(2);
  }
}
