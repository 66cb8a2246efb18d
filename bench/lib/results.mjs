// The results file every driver writes (bench/results/<file>) and what it opens with.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONNECTIONS } from './load.mjs';
import { ROOT } from './processes.mjs';

/** What every results file opens with: the machine, the load and the rounds' order. */
export function runHeader({ settings, roundOrders, servers }) {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cores: os.cpus().length,
    connections: CONNECTIONS,
    durationSec: settings.duration,
    warmupSec: settings.warmup,
    rounds: settings.rounds,
    roundOrders,
    servers,
  };
}

/** The machine a run was on, first in its raw figures. */
export const runMachine = (loadStart) => ({
  date: new Date().toISOString(),
  node: process.version,
  cores: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  loadAverage: { start: loadStart, end: os.loadavg() },
});

/** A store bench's end: its raw figures written, and a non-zero exit when a check did not hold. */
export function finishChecked(file, data, results) {
  writeResults(file, data);
  if (results.some((r) => !r.ok)) {
    console.error('\nbench FAILED: a check did not hold (see above)');
    process.exitCode = 1;
  }
}

/** Writes bench/results/<file> (pretty JSON) and says so. */
export function writeResults(file, data) {
  const outDir = path.join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, file), JSON.stringify(data, null, 2) + '\n');
  console.log(`\nraw figures: bench/results/${file}`);
}
