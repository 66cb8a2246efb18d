// Part 2: the cost of streaming. New tasks by SendMessage on keep-alive connections against
// SendStreamingMessage read until its first event and closed, with SendMessage on a new
// connection each as the control, in rounds of alternating order.
import { performance } from 'node:perf_hooks';
import { median, pool } from '../lib.mjs';
import { mb, ms, round, roundStats, stats } from './figures.mjs';
import { agentFor, openStream, request, rpcBody, sendNowParams, sendParams, sleep } from './http.mjs';
import { memory } from './muster.mjs';
import { COST_CONCURRENCY, COST_ROUNDS, COST_TASKS, TARGET_PATH } from './settings.mjs';

/** The three ways of making one task, each answering its latency in ms. */
function modes(run, agent) {
  const { muster, senderToken } = run;
  const plainOne = async () => {
    const t0 = performance.now();
    const r = await request(agent, muster.port, 'POST', TARGET_PATH, {
      token: senderToken,
      body: rpcBody('SendMessage', sendNowParams('plain')),
    });
    if (r.status !== 200 || !r.json?.result?.task?.id)
      throw new Error(`SendMessage: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    return performance.now() - t0;
  };
  // Control: the same SendMessage on a new connection each time (closing a stream early closes
  // its connection, so part of the streaming cost is connection set-up, not streaming itself).
  const plainNewConnectionOne = async () => {
    const t0 = performance.now();
    const r = await request(false, muster.port, 'POST', TARGET_PATH, {
      token: senderToken,
      body: rpcBody('SendMessage', sendNowParams('plain, new connection')),
    });
    if (r.status !== 200 || !r.json?.result?.task?.id)
      throw new Error(`SendMessage (new connection): HTTP ${r.status} ${r.text.slice(0, 200)}`);
    return performance.now() - t0;
  };
  const streamOne = async () => {
    const t0 = performance.now();
    let task;
    const { res } = await openStream(
      agent,
      muster.port,
      TARGET_PATH,
      senderToken,
      rpcBody('SendStreamingMessage', sendParams('streamed')),
      (event) => {
        task ??= JSON.parse(event.data).result?.task;
      },
    );
    const t = performance.now() - t0;
    res.destroy(); // read until the first event, then close (this also closes the connection)
    if (!task?.id) throw new Error('SendStreamingMessage: first event is not a Task');
    return t;
  };
  return { plain: plainOne, streaming: streamOne, plainNewConnection: plainNewConnectionOne };
}

/** `count` tasks made by `one`, COST_CONCURRENCY in flight: their rate and latencies. */
async function measure(mode, one, count, problems) {
  const lat = [];
  let errors = 0;
  let firstError;
  const t0 = performance.now();
  await pool(count, COST_CONCURRENCY, async () => {
    try {
      lat.push(await one());
    } catch (e) {
      errors++;
      firstError ??= e.message;
    }
  });
  const elapsed = performance.now() - t0;
  if (errors) problems.push(`${mode}: ${errors} error(s), first: ${firstError}`);
  return {
    tasks: count,
    errors,
    seconds: round(elapsed / 1000, 3),
    perSecond: round((count - errors) / (elapsed / 1000), 1),
    latencyMs: roundStats(stats(lat)),
  };
}

/** Tasks, seconds and tasks/s of `mode` over all rounds. */
function total(rounds, mode) {
  const secs = rounds.reduce((a, r) => a + r[mode].seconds, 0);
  const tasks = rounds.reduce((a, r) => a + r[mode].tasks - r[mode].errors, 0);
  return { tasks, seconds: round(secs, 3), perSecond: round(tasks / secs, 1) };
}

/** Runs the warm-up and COST_ROUNDS measured rounds, prints the summary; answers the results file's `cost`. */
export async function streamingCost(run) {
  const { muster, problems } = run;
  const agent = agentFor(COST_CONCURRENCY);
  const byMode = modes(run, agent);
  const runMode = (mode, count) => measure(mode, byMode[mode], count, problems);

  // warm-up, not measured
  await runMode('plain', Math.min(200, COST_TASKS));
  await runMode('streaming', Math.min(200, COST_TASKS));
  await runMode('plainNewConnection', Math.min(200, COST_TASKS));
  const rssBefore = memory(muster.pid).rssKB;

  const rounds = [];
  for (let r = 0; r < COST_ROUNDS; r++) {
    const order =
      r % 2 === 0 ? ['plain', 'streaming', 'plainNewConnection'] : ['plainNewConnection', 'streaming', 'plain'];
    const got = {};
    for (const mode of order) got[mode] = await runMode(mode, COST_TASKS);
    got.ratio = round(got.plain.perSecond / got.streaming.perSecond, 2);
    got.ratioNewConnection = round(got.plainNewConnection.perSecond / got.streaming.perSecond, 2);
    got.order = order;
    rounds.push(got);
    console.log(
      `cost round ${r + 1}: SendMessage ${got.plain.perSecond}/s, SendStreamingMessage ${got.streaming.perSecond}/s (plain/streaming ${got.ratio}x), SendMessage on new connections ${got.plainNewConnection.perSecond}/s`,
    );
  }
  await sleep(1000);
  const rssAfter = memory(muster.pid).rssKB;
  const plain = total(rounds, 'plain');
  const streaming = total(rounds, 'streaming');
  const plainNewConnection = total(rounds, 'plainNewConnection');
  const ratio = plain.perSecond / streaming.perSecond;
  const ratioNewConnection = plainNewConnection.perSecond / streaming.perSecond;
  const med = median(rounds.map((r) => r.ratio));
  agent.destroy();

  const p = (m) => rounds.map((r) => r[m].latencyMs.p50);
  console.log(`
== cost of streaming: ${COST_TASKS} new tasks per mode and round, ${COST_CONCURRENCY} in flight, ${COST_ROUNDS} round(s)
  SendMessage (keep-alive connections):            ${plain.perSecond} tasks/s   (latency p50 ${p('plain').map(ms).join(' / ')})
  SendStreamingMessage (first event, then close):  ${streaming.perSecond} tasks/s   (time to first event p50 ${p('streaming').map(ms).join(' / ')})
  SendMessage / SendStreamingMessage = ${ratio.toFixed(2)}x over all rounds (median of per-round ratios ${med.toFixed(2)}x)
  control, SendMessage on a new connection each:   ${plainNewConnection.perSecond} tasks/s   (latency p50 ${p('plainNewConnection').map(ms).join(' / ')}; ${ratioNewConnection.toFixed(2)}x streaming)
  Muster RSS before/after the measured rounds: ${mb(rssBefore)} / ${mb(rssAfter)}`);
  return {
    rounds,
    plain,
    streaming,
    plainNewConnection,
    ratioPlainOverStreaming: round(ratio, 2),
    ratioPlainNewConnectionOverStreaming: round(ratioNewConnection, 2),
    medianRoundRatio: round(med, 2),
    musterRssKB: { before: rssBefore, after: rssAfter },
  };
}
