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
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { freePort } from './lib.mjs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = process.env.BENCH_MUSTER_ROOT ?? HERE;
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? path.join(HERE, 'bench/results');
const int = (name, dflt) => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`);
  return n;
};
const N = int('FANOUT_SUBSCRIBERS', 1000);
const K = int('FANOUT_EVENTS', 50);
const INTERVAL_MS = int('FANOUT_INTERVAL_MS', 100);
const CONNECT_CONCURRENCY = Math.max(1, int('FANOUT_CONNECT_CONCURRENCY', 100));
const COST_TASKS = int('FANOUT_COST_TASKS', 2000);
const COST_CONCURRENCY = Math.max(1, int('FANOUT_COST_CONCURRENCY', 50));
const COST_ROUNDS = int('FANOUT_COST_ROUNDS', 3);
const SKIP_COST = process.env.FANOUT_SKIP_COST === '1';
const ADMIN_TOKEN = 'bench-admin';
const TEXT = (k) => `fanout update ${k}`;

// ---------------------------------------------------------------- file descriptor limit

function openFilesLimit() {
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
{
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

// ---------------------------------------------------------------- Muster

const tmp = mkdtempSync(path.join(os.tmpdir(), 'muster-fanout-'));
let child;
process.on('exit', () => {
  child?.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

async function startMuster() {
  const main = path.join(ROOT, 'dist/cli/main.js');
  if (!existsSync(main)) throw new Error(`${main} not found: run "npm run build" first`);
  const port = await freePort();
  const log = path.join(tmp, 'muster.log');
  const fd = openSync(log, 'w');
  const nodeArgs = (process.env.FANOUT_MUSTER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  child = spawn(
    process.execPath,
    [...nodeArgs, main, 'serve', '--port', String(port), '--db', `sqlite:${path.join(tmp, 'x.db')}`],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        MUSTER_ADMIN_TOKEN: ADMIN_TOKEN,
        MUSTER_RATE_LIMITS: 'off',
        MUSTER_LOG_LEVEL: 'warn',
        MUSTER_MAX_STREAMS_PER_CALLER: String(N + 100),
      },
      stdio: ['ignore', fd, fd],
    },
  );
  let exited = null;
  child.on('exit', (code, sig) => {
    exited = sig ?? code;
  });
  const tail = () => readFileSync(log, 'utf8').split('\n').slice(-20).join('\n');
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited !== null) throw new Error(`muster exited (${exited}) before becoming ready:\n${tail()}`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`muster not ready after 20 s:\n${tail()}`);
    await sleep(100);
  }
  return {
    port,
    base,
    pid: child.pid,
    tail,
    alive: () => exited === null,
    async stop() {
      if (exited !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}

/** VmRSS / VmHWM of a process, in kB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1]);
  return { rssKB: kb('VmRSS'), hwmKB: kb('VmHWM') };
}

/** user+system CPU seconds a process has used so far. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100 on Linux)
}

// ---------------------------------------------------------------- HTTP helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const agentFor = (maxSockets) => new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: 256 });

/** One request with node:http; resolves { status, headers, json, text }. */
function request(agent, port, method, urlPath, { token, body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        headers: {
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode, headers: res.headers, json, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const rpcBody = (method, params) => ({ jsonrpc: '2.0', id: 1, method, params });
const sendParams = (text) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
// A SendMessage nobody answers would wait out the hub's blocking wait (A2A 1.0 §3.2.2): these ask to be answered at once.
const sendNowParams = (text) => ({ ...sendParams(text), configuration: { returnImmediately: true } });

/**
 * Incremental SSE parser: feed it chunks, it calls onEvent({ id, data, comment }) per event.
 * Only what Muster writes is handled: `id:`, `data:` (one line) and `:` comment lines.
 */
function sseParser(onEvent) {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id;
      let data;
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = Number(line.slice(3).trim());
        else if (line.startsWith('data:')) data = line.slice(5).trimStart();
      }
      if (data === undefined) {
        onEvent({ comment: true });
        continue;
      }
      onEvent({ id, data });
    }
  };
}

/**
 * Opens an SSE stream (a JSON-RPC POST answered with text/event-stream). Resolves once the
 * first event arrived (or rejects on a non-SSE answer / socket error); `onEvent(event, t)` sees
 * every event with its receive time (performance.now()).
 */
function openStream(agent, port, urlPath, token, body, onEvent, onEnd) {
  return new Promise((resolve, reject) => {
    let first = true;
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: urlPath,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      },
      (res) => {
        if (!String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () =>
            reject(new Error(`HTTP ${res.statusCode} ${res.headers['content-type']}: ${text.slice(0, 300)}`)),
          );
          return;
        }
        res.setEncoding('utf8');
        const parse = sseParser((event) => {
          const t = performance.now();
          if (event.comment) return;
          onEvent(event, t);
          if (first) {
            first = false;
            resolve({ req, res });
          }
        });
        res.on('data', parse);
        res.on('end', () => {
          onEnd?.('end');
          if (first) reject(new Error('stream ended before its first event'));
        });
        res.on('close', () => {
          onEnd?.('close');
          if (first) reject(new Error('stream closed before its first event'));
        });
        res.on('error', (e) => {
          onEnd?.(`error ${e.message}`);
          if (first) reject(e);
        });
      },
    );
    req.on('error', (e) => {
      onEnd?.(`error ${e.message}`);
      if (first) reject(e);
    });
    req.end(JSON.stringify(body));
  });
}

/** Runs `count` jobs with at most `concurrency` in flight. */
async function pool(count, concurrency, job) {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) await job(next++);
  });
  await Promise.all(workers);
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const stats = (values) => {
  const s = Float64Array.from(values).sort();
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    count: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? NaN,
    mean: s.length ? sum / s.length : NaN,
  };
};
const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : '-');
const round = (v, d = 2) => (Number.isFinite(v) ? Number(v.toFixed(d)) : null);
const roundStats = (s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'count' ? v : round(v)]));

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

const muster = await startMuster();
console.log(
  `muster pid ${muster.pid} on ${muster.base}; ${N} subscribers, ${K} updates every ${INTERVAL_MS} ms + COMPLETED`,
);
console.log(
  `machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')} (other work on the machine skews every figure below)`,
);
const rest = agentFor(16);

const register = async (handle) => {
  const r = await request(rest, muster.port, 'POST', '/api/agents', { token: ADMIN_TOKEN, body: { handle } });
  if (r.status !== 201) throw new Error(`POST /api/agents ${handle}: HTTP ${r.status} ${r.text}`);
  return r.json.token;
};
const senderToken = await register('fanout-sender');
const targetToken = await register('fanout-target');
const TARGET_PATH = '/agents/fanout-target/';

try {
  await fanout();
  if (!SKIP_COST && COST_TASKS > 0 && COST_ROUNDS > 0) await cost();
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

// ---------------------------------------------------------------- part 1: fan-out

async function fanout() {
  const created = await request(rest, muster.port, 'POST', TARGET_PATH, {
    token: senderToken,
    body: rpcBody('SendMessage', sendNowParams('fan me out')),
  });
  const taskId = created.json?.result?.task?.id;
  if (!taskId) throw new Error(`SendMessage failed: HTTP ${created.status} ${created.text}`);

  await sleep(500); // let the process settle after start-up before the baseline
  const before = memory(muster.pid);

  // ---- connect N subscribers
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
      await openStream(
        subAgent,
        muster.port,
        TARGET_PATH,
        senderToken,
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
      connectTimes.push(performance.now() - t0);
    } catch (e) {
      connectFailures++;
      sub.errors.push(`connect: ${e.message}`);
    }
  });
  const connectMs = performance.now() - tConnect;
  const connected = subs.filter((s) => s.events.length > 0).length;
  await sleep(200);
  const afterConnect = memory(muster.pid);
  console.log(
    `connected ${connected}/${N} subscribers in ${ms(connectMs)} (time to first event p50 ${ms(stats(connectTimes).p50)}, max ${ms(stats(connectTimes).max)}); RSS ${before.rssKB} kB -> ${afterConnect.rssKB} kB`,
  );
  if (connectFailures)
    problems.push(
      `${connectFailures} subscriber(s) failed to connect (first: ${subs.find((s) => s.errors.length)?.errors[0]})`,
    );

  const firstIds = new Set(subs.filter((s) => s.events.length).map((s) => s.events[0].id));
  for (const s of subs) {
    if (s.events.length && !s.events[0].json?.result?.task) {
      problems.push(`subscriber ${s.i}: first event is not a Task: ${JSON.stringify(s.events[0].json).slice(0, 200)}`);
    }
  }

  // ---- the target posts K WORKING updates and a COMPLETED
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

  // ---- wait until every stream has closed (Muster ends them after the terminal update)
  const deadline = performance.now() + 30_000;
  while (subs.some((s) => s.ends.length === 0 && s.events.length > 0) && performance.now() < deadline) await sleep(50);
  const deliveredMs = performance.now() - tStart;
  const cpuDelivery = cpuSeconds(muster.pid) - cpu0;
  const driverCpu = process.cpuUsage(driverCpu0);
  const driverCpuSeconds = (driverCpu.user + driverCpu.system) / 1e6;
  const open = subs.filter((s) => s.ends.length === 0 && s.events.length > 0).length;
  if (open) problems.push(`${open} stream(s) still open 30 s after COMPLETED`);
  subAgent.destroy();
  await sleep(1000);
  const end = memory(muster.pid);

  // ---- check every subscriber's sequence, compute latencies
  const latencies = [];
  const perEvent = Array.from({ length: K + 1 }, () => []); // latencies of event k over subscribers
  const failures = {
    missing: 0,
    outOfOrder: 0,
    idNotIncreasing: 0,
    idGap: 0,
    extra: 0,
    wrongContent: 0,
    errors: 0,
    notEndedAfterCompleted: 0,
  };
  const failedSubs = new Set();
  const note = (s, kind, message) => {
    failures[kind]++;
    if (!failedSubs.has(s.i)) problems.push(`subscriber ${s.i}: ${message}`);
    failedSubs.add(s.i);
  };
  for (const s of subs) {
    if (s.errors.length) {
      failures.errors += s.errors.length;
      failedSubs.add(s.i);
      continue;
    }
    if (!s.events.length) continue;
    // ids: strictly increasing, and consecutive (every event in the task's log is visible to its sender)
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
      const latency = updates[k].t - sendTimes[k];
      latencies.push(latency);
      perEvent[k].push(latency);
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
  const complete = subs.filter((s) => s.events.length && !failedSubs.has(s.i)).length;

  const lat = stats(latencies);
  // "spread": per event, the time until the LAST subscriber has it, and the time to the first.
  const lastPerEvent = stats(perEvent.filter((a) => a.length).map((a) => Math.max(...a)));
  const firstPerEvent = stats(perEvent.filter((a) => a.length).map((a) => Math.min(...a)));
  const perSubKB = (afterConnect.rssKB - before.rssKB) / N;

  results.fanout = {
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

  console.log(`
== fan-out: 1 task, ${N} SubscribeToTask streams, ${K} WORKING updates + COMPLETED (${INTERVAL_MS} ms apart)
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
}

function mb(kb) {
  return `${(kb / 1024).toFixed(1)} MB`;
}

// ---------------------------------------------------------------- part 2: streaming vs plain SendMessage

async function cost() {
  const agent = agentFor(COST_CONCURRENCY);
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
  const modes = { plain: plainOne, streaming: streamOne, plainNewConnection: plainNewConnectionOne };
  const run = async (mode, count) => {
    const lat = [];
    let errors = 0;
    let firstError;
    const t0 = performance.now();
    await pool(count, COST_CONCURRENCY, async () => {
      try {
        lat.push(await modes[mode]());
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
  };

  // warm-up, not measured
  await run('plain', Math.min(200, COST_TASKS));
  await run('streaming', Math.min(200, COST_TASKS));
  await run('plainNewConnection', Math.min(200, COST_TASKS));
  const rssBefore = memory(muster.pid).rssKB;

  const rounds = [];
  for (let r = 0; r < COST_ROUNDS; r++) {
    const order =
      r % 2 === 0 ? ['plain', 'streaming', 'plainNewConnection'] : ['plainNewConnection', 'streaming', 'plain'];
    const got = {};
    for (const mode of order) got[mode] = await run(mode, COST_TASKS);
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
  const total = (mode) => {
    const secs = rounds.reduce((a, r) => a + r[mode].seconds, 0);
    const tasks = rounds.reduce((a, r) => a + r[mode].tasks - r[mode].errors, 0);
    return { tasks, seconds: round(secs, 3), perSecond: round(tasks / secs, 1) };
  };
  const plain = total('plain');
  const streaming = total('streaming');
  const plainNewConnection = total('plainNewConnection');
  const ratio = plain.perSecond / streaming.perSecond;
  const ratioNewConnection = plainNewConnection.perSecond / streaming.perSecond;
  const medianRatio = [...rounds.map((r) => r.ratio)].sort((a, b) => a - b);
  const med =
    medianRatio.length % 2
      ? medianRatio[(medianRatio.length - 1) / 2]
      : (medianRatio[medianRatio.length / 2 - 1] + medianRatio[medianRatio.length / 2]) / 2;
  results.cost = {
    rounds,
    plain,
    streaming,
    plainNewConnection,
    ratioPlainOverStreaming: round(ratio, 2),
    ratioPlainNewConnectionOverStreaming: round(ratioNewConnection, 2),
    medianRoundRatio: round(med, 2),
    musterRssKB: { before: rssBefore, after: rssAfter },
  };
  agent.destroy();

  const p = (m) => rounds.map((r) => r[m].latencyMs.p50);
  console.log(`
== cost of streaming: ${COST_TASKS} new tasks per mode and round, ${COST_CONCURRENCY} in flight, ${COST_ROUNDS} round(s)
  SendMessage (keep-alive connections):            ${plain.perSecond} tasks/s   (latency p50 ${p('plain').map(ms).join(' / ')})
  SendStreamingMessage (first event, then close):  ${streaming.perSecond} tasks/s   (time to first event p50 ${p('streaming').map(ms).join(' / ')})
  SendMessage / SendStreamingMessage = ${ratio.toFixed(2)}x over all rounds (median of per-round ratios ${med.toFixed(2)}x)
  control, SendMessage on a new connection each:   ${plainNewConnection.perSecond} tasks/s   (latency p50 ${p('plainNewConnection').map(ms).join(' / ')}; ${ratioNewConnection.toFixed(2)}x streaming)
  Muster RSS before/after the measured rounds: ${mb(rssBefore)} / ${mb(rssAfter)}`);
}
