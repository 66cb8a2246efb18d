// Part 1's checks: every subscriber's events, in order and complete, and the delivery latency of
// each update it received.
import { K, TEXT } from './settings.mjs';

/** Failures counted by kind, all zero. */
const noFailures = () => ({
  missing: 0,
  outOfOrder: 0,
  idNotIncreasing: 0,
  idGap: 0,
  extra: 0,
  wrongContent: 0,
  errors: 0,
  notEndedAfterCompleted: 0,
});

/**
 * Checks subscriber `s`'s events: SSE ids strictly increasing and consecutive (every event in the
 * task's log is visible to its sender), exactly K+1 statusUpdates and nothing else, the k-th
 * carrying TEXT(k) and the last COMPLETED, then the stream's end. `note(s, kind, message)` counts a
 * failure; `delivered(k, latency)` gets each good update's latency from its send time.
 */
function checkSubscriber(s, sendTimes, note, delivered) {
  for (let j = 1; j < s.events.length; j++) {
    const [a, b] = [s.events[j - 1].id, s.events[j].id];
    if (!(b > a)) note(s, 'idNotIncreasing', `SSE id ${b} after ${a}`);
    else if (b !== a + 1) note(s, 'idGap', `SSE id ${b} after ${a} (gap of ${b - a - 1})`);
  }
  const updates = s.events.slice(1).filter((e) => e.json?.result?.statusUpdate);
  const others = s.events.slice(1).filter((e) => !e.json?.result?.statusUpdate);
  if (others.length)
    note(
      s,
      'extra',
      `${others.length} event(s) that are not statusUpdates, first: ${JSON.stringify(others[0].json).slice(0, 200)}`,
    );
  if (updates.length < K + 1) note(s, 'missing', `got ${updates.length} of ${K + 1} status updates`);
  if (updates.length > K + 1) note(s, 'extra', `got ${updates.length} status updates, expected ${K + 1}`);
  for (let k = 0; k < Math.min(updates.length, K + 1); k++) {
    const status = updates[k].json.result.statusUpdate.status;
    const text = status.message?.parts?.[0]?.text;
    const final = k === K;
    const ok = final
      ? status.state === 'TASK_STATE_COMPLETED'
      : status.state === 'TASK_STATE_WORKING' && text === TEXT(k);
    if (!ok) {
      const kAt = typeof text === 'string' && text.startsWith('fanout update ') ? Number(text.slice(14)) : undefined;
      note(
        s,
        kAt !== undefined && kAt !== k ? 'outOfOrder' : 'wrongContent',
        `update #${k} is ${status.state} "${text}"`,
      );
      continue;
    }
    delivered(k, updates[k].t - sendTimes[k]);
  }
  const last = s.events[s.events.length - 1];
  const endedAfter = s.ends[0]?.t;
  if (last.json?.result?.statusUpdate?.status.state !== 'TASK_STATE_COMPLETED' || endedAfter === undefined) {
    note(
      s,
      'notEndedAfterCompleted',
      `stream did not end with COMPLETED then close (last event ${JSON.stringify(last.json).slice(0, 120)}, end: ${s.ends[0]?.how ?? 'none'})`,
    );
  }
}

/**
 * Checks every connected subscriber (the first failure of each listed in `problems`). Answers all
 * delivery latencies, those of each update (`perEvent[k]`), the failures by kind and how many
 * subscribers got every event, in order.
 */
export function checkSubscribers(subs, sendTimes, problems) {
  const latencies = [];
  const perEvent = Array.from({ length: K + 1 }, () => []); // latencies of event k over subscribers
  const failures = noFailures();
  const failedSubs = new Set();
  const note = (s, kind, message) => {
    failures[kind]++;
    if (!failedSubs.has(s.i)) problems.push(`subscriber ${s.i}: ${message}`);
    failedSubs.add(s.i);
  };
  const delivered = (k, latency) => {
    latencies.push(latency);
    perEvent[k].push(latency);
  };
  for (const s of subs) {
    if (s.errors.length) {
      failures.errors += s.errors.length;
      failedSubs.add(s.i);
      continue;
    }
    if (s.events.length) checkSubscriber(s, sendTimes, note, delivered);
  }
  const complete = subs.filter((s) => s.events.length && !failedSubs.has(s.i)).length;
  return { latencies, perEvent, failures, complete };
}
