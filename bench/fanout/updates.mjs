// Part 1's second phase: the target posts K WORKING updates and a COMPLETED to the task, one every
// INTERVAL_MS, noting when each was sent; then every stream should end.
import { performance } from 'node:perf_hooks';
import { cpuSeconds } from '../lib.mjs';
import { request, sleep } from './http.mjs';
import { memory } from './muster.mjs';
import { INTERVAL_MS, K, TEXT } from './settings.mjs';

/**
 * Posts the updates (each awaited before the next), samples Muster's RSS every 10th, and waits
 * (30 s at most) until every connected stream has ended, then closes the subscribers' agent.
 * Answers each update's send time and respond round trip, the phase's time, Muster's and this
 * driver's CPU in it, Muster's peak RSS (from `afterConnect`'s) and its memory a second after.
 */
export async function postUpdates(run, taskId, { subs, subAgent, afterConnect }) {
  const { muster, rest, targetToken, problems } = run;
  const sendTimes = [];
  const respondMs = [];
  const cpu0 = cpuSeconds(muster.pid);
  const driverCpu0 = process.cpuUsage();
  const tStart = performance.now();
  let peakDuring = afterConnect.rssKB;
  for (let k = 0; k <= K; k++) {
    const planned = tStart + k * INTERVAL_MS;
    const wait = planned - performance.now();
    if (wait > 0) await sleep(wait);
    const final = k === K;
    const state = final ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING';
    sendTimes[k] = performance.now();
    const r = await request(rest, muster.port, 'POST', `/api/tasks/${taskId}/respond`, {
      token: targetToken,
      body: { state, message: { parts: [{ text: final ? 'done' : TEXT(k) }] } },
    });
    respondMs[k] = performance.now() - sendTimes[k];
    if (r.status !== 200) problems.push(`respond ${k} (${state}): HTTP ${r.status} ${r.text.slice(0, 200)}`);
    if (k % 10 === 0) peakDuring = Math.max(peakDuring, memory(muster.pid).rssKB);
  }

  // Muster ends every stream after the terminal update.
  const isOpen = (s) => s.ends.length === 0 && s.events.length > 0;
  const deadline = performance.now() + 30_000;
  while (subs.some(isOpen) && performance.now() < deadline) await sleep(50);
  const deliveredMs = performance.now() - tStart;
  const cpuDelivery = cpuSeconds(muster.pid) - cpu0;
  const driverCpu = process.cpuUsage(driverCpu0);
  const driverCpuSeconds = (driverCpu.user + driverCpu.system) / 1e6;
  const open = subs.filter(isOpen).length;
  if (open) problems.push(`${open} stream(s) still open 30 s after COMPLETED`);
  subAgent.destroy();
  await sleep(1000);
  const end = memory(muster.pid);
  return { sendTimes, respondMs, peakDuring, deliveredMs, cpuDelivery, driverCpuSeconds, end };
}
