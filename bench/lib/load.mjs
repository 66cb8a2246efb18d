// The load of the SendMessage/GetTask drivers: their settings, the two scenarios with their
// sample checks and one measured autocannon run.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';

export const CONNECTIONS = 50;

/** BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_ROUNDS (default 3). */
export function benchSettings(env = process.env) {
  const settings = {
    duration: Number(env.BENCH_DURATION ?? 10),
    warmup: Number(env.BENCH_WARMUP ?? 3),
    rounds: Number(env.BENCH_ROUNDS ?? 3),
  };
  if (!Number.isInteger(settings.rounds) || settings.rounds < 1) {
    throw new Error(`BENCH_ROUNDS must be a positive integer, got "${env.BENCH_ROUNDS}"`);
  }
  return settings;
}

/** The first line a driver prints. */
export function describeSettings({ duration, warmup, rounds }) {
  return (
    `bench: ${CONNECTIONS} connections, ${rounds} round(s) of ${duration} s per run ` +
    `(${warmup > 0 ? `${warmup} s warm-up before each server/scenario's first run only` : 'no warm-up'}), ` +
    `node ${process.version}, ${os.cpus().length} cores, load generator in this process`
  );
}

const rpcBody = (method, params) => ({ jsonrpc: '2.0', id: 1, method, params });
const sendMessage = (server, messageId) =>
  rpcBody('SendMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    ...(server.sendConfiguration && { configuration: server.sendConfiguration }),
  });

/** One JSON-RPC call with fetch; returns `result` or throws with the server's answer. */
async function call(server, body, url = server.urls[0]) {
  const res = await fetch(url, { method: 'POST', headers: server.headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    /* reported below */
  }
  if (res.status !== 200 || !json || json.error || json.result === undefined) {
    const where = server.urls.length > 1 ? ` on ${url}` : '';
    throw new Error(`${body.method} sample failed${where}: HTTP ${res.status} ${text.slice(0, 500)}`);
  }
  return json.result;
}

// Each scenario's prepare() checks real responses (from every process of the server) and
// returns the autocannon request.
export const SCENARIOS = {
  SendMessage: {
    async prepare(server) {
      for (const url of server.urls) {
        const result = await call(server, sendMessage(server, `m-sample-${randomUUID()}`), url);
        if (!result.task?.id) throw new Error(`SendMessage sample has no result.task.id: ${JSON.stringify(result)}`);
      }
      // "[<id>]" is replaced by autocannon (idReplacement) so every messageId is unique.
      return { body: JSON.stringify(sendMessage(server, 'm-[<id>]')), idReplacement: true };
    },
  },
  GetTask: {
    async prepare(server) {
      // Created through the first process, read through every one (with two hubs on one
      // database, the second must see what the first stored).
      const { task } = await call(server, sendMessage(server, `m-gettask-${randomUUID()}`));
      const body = rpcBody('GetTask', { id: task.id });
      for (const url of server.urls) {
        const got = await call(server, body, url);
        if (got.id !== task.id) throw new Error(`GetTask sample returned another task: ${JSON.stringify(got)}`);
      }
      return { body: JSON.stringify(body), idReplacement: false };
    },
  },
};

function load(server, request, duration) {
  return autocannon({
    // Several processes: autocannon hands connection i to url i % n (round-robin), one
    // load generator and one latency histogram for the lot.
    url: server.urls.length === 1 ? server.urls[0] : server.urls,
    method: 'POST',
    headers: server.headers,
    ...request,
    connections: CONNECTIONS,
    duration,
    // Every response must be a JSON-RPC result; anything else counts as a mismatch.
    verifyBody: (body) => body.includes('"result"') && !body.includes('"error"'),
  });
}

/**
 * One measured run; `warmup` seconds of load first (0: none). A `probe` ({ before(server),
 * after(server, state, autocannonResult) }) brackets the measured load only; what after()
 * returns is kept as the run's `observed`.
 */
export async function runScenario(server, name, { warmup, duration, probe }) {
  const request = await SCENARIOS[name].prepare(server);
  if (warmup > 0) await load(server, request, warmup);
  const state = probe && (await probe.before(server));
  const r = await load(server, request, duration);
  const observed = probe && (await probe.after(server, state, r));
  return {
    reqPerSec: r.requests.average,
    requests: r.requests.total,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.mean },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    mismatches: r.mismatches,
    failures: r.errors + r.timeouts + r.non2xx + r.mismatches,
    ...(observed !== undefined && { observed }),
  };
}
