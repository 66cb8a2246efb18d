// Part 1's first phase: N SubscribeToTask streams opened on the one task, each noting every event
// it parses and when its stream ended.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pool } from '../lib.mjs';
import { ms, stats } from './figures.mjs';
import { openStream, rpcBody, sleep } from './http.mjs';
import { memory } from './muster.mjs';
import { CONNECT_CONCURRENCY, N, TARGET_PATH } from './settings.mjs';

/** Opens subscriber `sub`'s stream; resolves once its first event is in. */
function subscribe(run, sub, body, agent) {
  return openStream(
    agent,
    run.muster.port,
    TARGET_PATH,
    run.senderToken,
    body,
    (event, t) => {
      let json;
      try {
        json = JSON.parse(event.data);
      } catch {
        sub.errors.push(`unparsable data: ${event.data.slice(0, 100)}`);
        return;
      }
      sub.events.push({ id: event.id, json, t });
    },
    (how) => sub.ends.push({ how, t: performance.now() }),
  );
}

/**
 * Connects N subscribers to `taskId`, at most CONNECT_CONCURRENCY at once, each until its first
 * event (the Task); `before` is Muster's memory before. Answers the subscribers
 * ({ i, events, ends, errors } each), their agent, Muster's memory once all are in, and the
 * connect figures.
 */
export async function connectSubscribers(run, taskId, before) {
  const subAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });
  const subs = Array.from({ length: N }, (_, i) => ({ i, events: [], ends: [], errors: [] }));
  const body = rpcBody('SubscribeToTask', { id: taskId });
  const tConnect = performance.now();
  const connectTimes = [];
  let connectFailures = 0;
  await pool(N, CONNECT_CONCURRENCY, async (i) => {
    const sub = subs[i];
    const t0 = performance.now();
    try {
      await subscribe(run, sub, body, subAgent);
      connectTimes.push(performance.now() - t0);
    } catch (e) {
      connectFailures++;
      sub.errors.push(`connect: ${e.message}`);
    }
  });
  const connectMs = performance.now() - tConnect;
  const connected = subs.filter((s) => s.events.length > 0).length;
  await sleep(200);
  const afterConnect = memory(run.muster.pid);
  console.log(
    `connected ${connected}/${N} subscribers in ${ms(connectMs)} (time to first event p50 ${ms(stats(connectTimes).p50)}, max ${ms(stats(connectTimes).max)}); RSS ${before.rssKB} kB -> ${afterConnect.rssKB} kB`,
  );
  if (connectFailures)
    run.problems.push(
      `${connectFailures} subscriber(s) failed to connect (first: ${subs.find((s) => s.errors.length)?.errors[0]})`,
    );

  const firstIds = new Set(subs.filter((s) => s.events.length).map((s) => s.events[0].id));
  for (const s of subs) {
    if (s.events.length && !s.events[0].json?.result?.task) {
      run.problems.push(
        `subscriber ${s.i}: first event is not a Task: ${JSON.stringify(s.events[0].json).slice(0, 200)}`,
      );
    }
  }
  return { subs, subAgent, afterConnect, connect: { connected, connectFailures, connectMs, connectTimes, firstIds } };
}
