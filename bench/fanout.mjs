// Muster SSE fan-out benchmark: one task, N concurrent SubscribeToTask streams on ONE Muster
// process, K status updates posted by the target; delivery latency, ordering/gap checks,
// resident memory per subscriber; then the cost of SendStreamingMessage against SendMessage.
//
//   node bench/fanout.mjs
//   env: FANOUT_SUBSCRIBERS (default 1000)   concurrent subscribers to the one task
//        FANOUT_EVENTS (default 50)          WORKING updates, one every FANOUT_INTERVAL_MS, then a COMPLETED
//        FANOUT_INTERVAL_MS (default 100)
//        FANOUT_CONNECT_CONCURRENCY (default 100)  streams being opened at once
//        FANOUT_COST_TASKS (default 2000)    tasks per mode and round in the streaming-cost part
//        FANOUT_COST_CONCURRENCY (default 50)
//        FANOUT_COST_ROUNDS (default 3)      rounds of the cost part (order alternates: ABC, CBA, ...)
//        FANOUT_SKIP_COST=1                  only the fan-out part
//        FANOUT_MUSTER_NODE_ARGS             extra node flags for the Muster process only,
//                                            e.g. "--cpu-prof --cpu-prof-dir=/tmp/muster-prof"
//        BENCH_MUSTER_ROOT                   the checkout whose dist/ is run (default: the one above bench/)
//        BENCH_RESULTS_DIR                   where fanout.json goes (default: bench/results)
//
// Needs dist/ (npm run build). Writes bench/results/fanout.json. Exit code non-zero when
// something failed (a subscriber missed, reordered or duplicated an event, a request failed).
//
// The pieces are under bench/fanout/: settings.mjs (the FANOUT_* settings, the open-files limit),
// muster.mjs (the Muster process and its memory), http.mjs (requests and SSE streams),
// figures.mjs (latency summaries), subscribers.mjs (connecting them), updates.mjs (posting the
// updates), checks.mjs (each subscriber's events and latencies), report.mjs (part 1's figures),
// cost.mjs (part 2); this file runs the parts and writes the results.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkSubscribers } from './fanout/checks.mjs';
import { streamingCost } from './fanout/cost.mjs';
import { round } from './fanout/figures.mjs';
import { agentFor, request, rpcBody, sendNowParams, sleep } from './fanout/http.mjs';
import { memory, startMuster } from './fanout/muster.mjs';
import { reportFanout } from './fanout/report.mjs';
import {
  ADMIN_TOKEN,
  checkOpenFiles,
  CONNECT_CONCURRENCY,
  COST_CONCURRENCY,
  COST_ROUNDS,
  COST_TASKS,
  INTERVAL_MS,
  K,
  N,
  openFilesLimit,
  RESULTS_DIR,
  SKIP_COST,
  TARGET_PATH,
} from './fanout/settings.mjs';
import { connectSubscribers } from './fanout/subscribers.mjs';
import { postUpdates } from './fanout/updates.mjs';

checkOpenFiles();

// ---------------------------------------------------------------- part 1: fan-out

/**
 * One task, N subscribers, K+1 updates: answers the results file's `fanout` (the hub's first
 * fan-out) or `fanoutAgain` (`title`: the same on another task, once the first has ended).
 */
async function fanout(run, title) {
  const { muster, rest, senderToken, problems } = run;
  const created = await request(rest, muster.port, 'POST', TARGET_PATH, {
    token: senderToken,
    body: rpcBody('SendMessage', sendNowParams('fan me out')),
  });
  const taskId = created.json?.result?.task?.id;
  if (!taskId) throw new Error(`SendMessage failed: HTTP ${created.status} ${created.text}`);

  await sleep(500); // let the process settle after start-up before the baseline
  const before = memory(muster.pid);
  const subscribers = await connectSubscribers(run, taskId, before);
  const updated = await postUpdates(run, taskId, subscribers);
  const checked = checkSubscribers(subscribers.subs, updated.sendTimes, problems);
  return reportFanout(taskId, before, subscribers, updated, checked, title);
}

// ---------------------------------------------------------------- main

const results = {
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memMB: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    openFilesLimit: openFilesLimit(),
  },
  loadAverageAtStart: os.loadavg().map((v) => round(v)),
  config: {
    subscribers: N,
    events: K,
    intervalMs: INTERVAL_MS,
    connectConcurrency: CONNECT_CONCURRENCY,
    costTasks: COST_TASKS,
    costConcurrency: COST_CONCURRENCY,
    costRounds: SKIP_COST ? 0 : COST_ROUNDS,
  },
};
const problems = [];

/** The Muster measured, the REST calls' agent, the two agents' tokens and the problems found so far. */
const run = { muster: await startMuster(), rest: agentFor(16), problems };
const { muster } = run;
console.log(
  `muster pid ${muster.pid} on ${muster.base}; ${N} subscribers, ${K} updates every ${INTERVAL_MS} ms + COMPLETED`,
);
console.log(
  `machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')} (other work on the machine skews every figure below)`,
);

const register = async (handle) => {
  const r = await request(run.rest, muster.port, 'POST', '/api/agents', { token: ADMIN_TOKEN, body: { handle } });
  if (r.status !== 201) throw new Error(`POST /api/agents ${handle}: HTTP ${r.status} ${r.text}`);
  return r.json.token;
};
run.senderToken = await register('fanout-sender');
run.targetToken = await register('fanout-target');

try {
  results.fanout = await fanout(run);
  // A hub that has fanned out once has its fan-out path compiled: V8 compiles it during the first
  // updates, on the same two cores, and those updates set the first run's p99. The second run is
  // what a hub that has been up a while does; its memory is measured over a heap already grown.
  results.fanoutAgain = await fanout(run, 'the same again on a new task, the fan-out path now compiled');
  if (!SKIP_COST && COST_TASKS > 0 && COST_ROUNDS > 0) results.cost = await streamingCost(run);
} catch (e) {
  problems.push(`aborted: ${e.stack ?? e}`);
  console.error(e);
  if (!muster.alive()) console.error(`muster log:\n${muster.tail()}`);
} finally {
  results.problems = problems;
  results.loadAverageAtEnd = os.loadavg().map((v) => round(v));
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, 'fanout.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nraw figures: ${path.join(RESULTS_DIR, 'fanout.json')}`);
  if (problems.length) {
    console.log(`\n${problems.length} problem(s):`);
    for (const p of problems.slice(0, 30)) console.log(`  - ${p}`);
  }
  await muster.stop();
  process.exitCode = problems.length ? 1 : 0;
}
