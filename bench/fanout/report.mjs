// Part 1's report: the fan-out figures for the results file and their summary on stdout.
import os from 'node:os';
import { mb, ms, round, roundStats, stats } from './figures.mjs';
import { INTERVAL_MS, K, N } from './settings.mjs';

/**
 * Prints the fan-out summary and answers the results file's `fanout` figures, from Muster's memory
 * `before` the subscribers and what connectSubscribers, postUpdates and checkSubscribers answered.
 */
export function reportFanout(taskId, before, subscribers, updated, checked, title) {
  const { afterConnect } = subscribers;
  const { connected, connectFailures, connectMs, connectTimes, firstIds } = subscribers.connect;
  const { respondMs, peakDuring, deliveredMs, cpuDelivery, driverCpuSeconds, end } = updated;
  const { latencies, perEvent, failures, complete } = checked;
  const lat = stats(latencies);
  // "spread": per event, the time until the LAST subscriber has it, and the time to the first.
  const lastPerEvent = stats(perEvent.filter((a) => a.length).map((a) => Math.max(...a)));
  const firstPerEvent = stats(perEvent.filter((a) => a.length).map((a) => Math.min(...a)));
  const perSubKB = (afterConnect.rssKB - before.rssKB) / N;

  console.log(`
== fan-out: 1 task, ${N} SubscribeToTask streams, ${K} WORKING updates + COMPLETED (${INTERVAL_MS} ms apart)${title ? `: ${title}` : ''}
  subscribers with every event, in order: ${complete}/${N}   deliveries ${latencies.length}/${N * (K + 1)}
  failures: ${Object.entries(failures)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}
  delivery latency (respond sent -> event parsed by subscriber), over ${lat.count} deliveries:
    p50 ${ms(lat.p50)}   p90 ${ms(lat.p90)}   p99 ${ms(lat.p99)}   max ${ms(lat.max)}   mean ${ms(lat.mean)}
  per update, time until the last subscriber has it: p50 ${ms(lastPerEvent.p50)}  max ${ms(lastPerEvent.max)}; until the first: p50 ${ms(firstPerEvent.p50)}
  respond round trip: p50 ${ms(stats(respondMs).p50)}  max ${ms(stats(respondMs).max)}
  CPU during the updates phase (${(deliveredMs / 1000).toFixed(1)} s): Muster ${cpuDelivery.toFixed(2)} s (${((cpuDelivery * 1e6) / Math.max(1, latencies.length)).toFixed(0)} us per delivery), this driver ${driverCpuSeconds.toFixed(2)} s (${os.cpus().length} cores shared)
  Muster RSS: before ${mb(before.rssKB)}, all connected ${mb(afterConnect.rssKB)}, peak during updates ${mb(peakDuring)}, end ${mb(end.rssKB)} (high-water ${mb(end.hwmKB)})
  RSS per subscriber: ${perSubKB.toFixed(1)} KB  ((connected - before) / ${N})`);
  return {
    taskId,
    connect: {
      connected,
      failures: connectFailures,
      totalMs: round(connectMs, 1),
      timeToFirstEventMs: roundStats(stats(connectTimes)),
      firstEventIds: [...firstIds],
    },
    deliveryLatencyMs: roundStats(lat),
    lastSubscriberPerEventMs: roundStats(lastPerEvent),
    firstSubscriberPerEventMs: roundStats(firstPerEvent),
    respondMs: roundStats(stats(respondMs)),
    perUpdateP50Ms: perEvent.map((a) => round(stats(a).p50)),
    perUpdateMaxMs: perEvent.map((a) => round(stats(a).max)),
    expectedDeliveries: N * (K + 1),
    deliveries: latencies.length,
    subscribersComplete: complete,
    failures,
    memory: {
      beforeKB: before.rssKB,
      connectedKB: afterConnect.rssKB,
      peakDuringUpdatesKB: peakDuring,
      endKB: end.rssKB,
      hwmKB: end.hwmKB,
      perSubscriberKB: round(perSubKB, 1),
    },
    musterCpuSecondsDuringUpdates: round(cpuDelivery, 2),
    driverCpuSecondsDuringUpdates: round(driverCpuSeconds, 2),
    updatesPhaseMs: round(deliveredMs, 0),
  };
}
