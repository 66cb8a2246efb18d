// The fan-out part of bench/compare.mjs: bench/fanout.mjs run as a child process against one build,
// its figures read from the results file it writes.
//
// fanout.mjs starts the Muster of the folder above its own (its ROOT) and writes its results
// there. So each build gets a harness folder in the run's temp dir: the working tree's bench/*.mjs,
// bench/lib/ (which lib.mjs re-exports) and bench/fanout/ (fanout.mjs's pieces) copied in (both
// builds measured by the same harness), and links to the build's dist/ and node_modules. Node runs
// the linked dist/cli/main.js from its real path, with that build's packages; neither build's
// bench/results/ is touched.
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { benchTmp, ROOT } from './lib.mjs';

/** Makes (once) the harness folder for the build in `root`, named `name`; answers its path. */
function harness(name, root) {
  const dir = path.join(benchTmp(), `fanout-${name}`);
  const bench = path.join(dir, 'bench');
  mkdirSync(bench, { recursive: true });
  for (const file of readdirSync(path.join(ROOT, 'bench')).filter((f) => f.endsWith('.mjs')))
    copyFileSync(path.join(ROOT, 'bench', file), path.join(bench, file));
  for (const folder of ['lib', 'fanout'])
    cpSync(path.join(ROOT, 'bench', folder), path.join(bench, folder), { recursive: true });
  for (const link of ['dist', 'node_modules']) {
    try {
      symlinkSync(path.join(root, link), path.join(dir, link), 'dir');
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
  }
  return dir;
}

/**
 * One fan-out run (its streaming-cost part skipped) against the build in `root`; FANOUT_* settings
 * in this process's environment pass through. Answers { p99Ms, p99AgainMs, kbPerSubscriber,
 * kbPerSubscriberAgain, config, problems }: the hub's first fan-out and its second (fanout.mjs's
 * `fanoutAgain`), each with its memory. The first's memory also counts what a hub just started
 * allocates once; the second's is over a hub already grown.
 */
export async function runFanout(name, root) {
  const dir = harness(name, root);
  const log = path.join(benchTmp(), `fanout-${name}.log`);
  const resultsFile = path.join(dir, 'bench/results/fanout.json');
  rmSync(resultsFile, { force: true }); // the last round's, which a failed run must not pass off as its own
  const child = spawn(process.execPath, [path.join(dir, 'bench/fanout.mjs')], {
    cwd: dir,
    env: { ...process.env, FANOUT_SKIP_COST: '1' },
    stdio: ['ignore', openSync(log, 'w'), openSync(log, 'a')],
  });
  const code = await new Promise((resolve) => child.once('exit', (c, sig) => resolve(sig ?? c)));
  const tail = () => readFileSync(log, 'utf8').trim().split('\n').slice(-15).join('\n');
  let results;
  try {
    results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  } catch {
    throw new Error(`fanout.mjs (${name}) exited ${code} and wrote no results:\n${tail()}`);
  }
  const fanout = results.fanout;
  const again = results.fanoutAgain?.deliveryLatencyMs?.p99;
  const kbAgain = results.fanoutAgain?.memory?.perSubscriberKB;
  if (
    fanout?.deliveryLatencyMs?.p99 === undefined ||
    fanout?.memory?.perSubscriberKB === undefined ||
    again === undefined ||
    kbAgain === undefined
  )
    throw new Error(`fanout.mjs (${name}) exited ${code}; its results have no p99 or KB per subscriber:\n${tail()}`);
  return {
    p99Ms: fanout.deliveryLatencyMs.p99,
    p99AgainMs: again,
    kbPerSubscriber: fanout.memory.perSubscriberKB,
    kbPerSubscriberAgain: kbAgain,
    config: results.config,
    problems: code === 0 ? [] : (results.problems ?? [`exit ${code}`]),
  };
}
