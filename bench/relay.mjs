// Muster relay benchmark: the round trip of a blocking SendMessage through the hub to an agent
// that dials out and answers at once, against a direct blocking call to the same agent built on
// the SDK's own server (bench/reference-server.mjs --answer), in one run.
//
//   node bench/relay.mjs [--only sqlite|postgres]
//   env: RELAY_SENDS (default 400)   blocking sends per server and round, one after another
//        RELAY_ROUNDS (default 3)    rounds; the order of the servers alternates each round
//
// The agent behind the hub, three ways:
//   - "inbox":  a client in this process holding GET /api/inbox/stream and answering each task
//               through POST /api/tasks/{id}/respond: what the relay itself costs;
//   - "attach": `muster attach --exec` running a shell command that prints the answer: what a
//               script behind the hub sees (a process is spawned per task).
// On PostgreSQL two hubs share the database: the sender calls hub 1, the agent holds hub 2.
//
// Needs dist/ (npm run build). Writes bench/results/relay.json. Exit code non-zero when a send
// did not come back COMPLETED with the agent's answer.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ROOT,
  atCleanUp,
  benchTmp,
  freePort,
  latency,
  median,
  parseOnly,
  registerAgent,
  runMain,
  runStores,
  startChild,
  startHubs,
  storeDatabase,
  writeResults,
} from './lib.mjs';

const SENDS = Number(process.env.RELAY_SENDS ?? 400);
const ROUNDS = Number(process.env.RELAY_ROUNDS ?? 3);
const ANSWER = '{"state":"completed","message":{"parts":[{"text":"done"}]}}';
const A2A = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** One blocking SendMessage; throws unless the task came back COMPLETED. */
async function blockingSend(url, headers) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'ping' }] } },
  };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const answer = await res.json();
  const state = answer.result?.task?.status?.state;
  if (state !== 'TASK_STATE_COMPLETED')
    throw new Error(`a blocking send came back ${JSON.stringify(answer).slice(0, 300)}`);
}

/** Latencies (ms) of `SENDS` blocking sends one after another, after a few unmeasured ones. */
async function measure(target) {
  for (let i = 0; i < 20; i++) await blockingSend(target.url, target.headers);
  const times = [];
  for (let i = 0; i < SENDS; i++) {
    const start = performance.now();
    await blockingSend(target.url, target.headers);
    times.push(performance.now() - start);
  }
  return times;
}

/** An agent in this process on the live inbox: answers every new task at once through respond. */
async function inboxClient(base, token) {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/inbox/stream`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  if (res.status !== 200) throw new Error(`GET /api/inbox/stream: HTTP ${res.status} ${await res.text()}`);
  const respond = (id) =>
    fetch(`${base}/api/tasks/${id}/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: ANSWER,
    }).then((r) => r.text());
  (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .find((l) => l.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        const event = data && JSON.parse(data.slice(6));
        if (event?.kind === 'task') void respond(event.task.id);
      }
    }
  })().catch(() => {});
  return { stop: () => abort.abort() };
}

/** `muster attach` for the target, with a shell command that answers at once. */
async function attached(base, handle, token) {
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'dist/cli/main.js'),
      'attach',
      handle,
      '--url',
      `${base}/`,
      '--token',
      token,
      '--exec',
      `cat >/dev/null; printf '%s' '${ANSWER}'`,
    ],
    {
      cwd: benchTmp(),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const stop = () =>
    new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM'))));
  atCleanUp(stop);
  // Attached once it holds the live inbox (the hub holds its presence before it answers the stream).
  for (let i = 0; i < 100 && !stderr.includes('holding the live inbox'); i++) {
    if (child.exitCode !== null) throw new Error(`muster attach exited (${child.exitCode}): ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!stderr.includes('holding the live inbox'))
    throw new Error(`muster attach did not take the live inbox: ${stderr}`);
  return { stop };
}

async function runStore(store, admin, reference) {
  const { db } = await storeDatabase(store, admin, 'relay.db');
  const hubs = await startHubs({ name: `relay-${store}`, db, processes: store === 'sqlite' ? 1 : 2 });
  atCleanUp(hubs.stop);
  const [senderBase, agentBase] = [hubs.bases[0], hubs.bases.at(-1)];
  const sender = await registerAgent(senderBase, 'relay-sender');
  const agents = {};
  for (const way of ['inbox', 'attach']) agents[way] = await registerAgent(senderBase, `relay-${way}`);
  const headers = { ...A2A, authorization: `Bearer ${sender.token}` };
  const servers = {
    direct: { url: reference.url, headers: A2A, start: async () => ({ stop: () => {} }) },
    inbox: {
      url: `${senderBase}/agents/relay-inbox/`,
      headers,
      start: () => inboxClient(agentBase, agents.inbox.token),
    },
    attach: {
      url: `${senderBase}/agents/relay-attach/`,
      headers,
      start: () => attached(agentBase, 'relay-attach', agents.attach.token),
    },
  };
  const runs = { direct: [], inbox: [], attach: [] };
  const order = Object.keys(servers);
  for (let round = 1; round <= ROUNDS; round++) {
    const roundOrder = round % 2 ? order : [...order].reverse();
    for (const name of roundOrder) {
      const agent = await servers[name].start();
      const times = await measure(servers[name]);
      await agent.stop();
      runs[name].push(latency(times));
      console.log(
        `  ${store} round ${round} ${name}: p50 ${runs[name].at(-1).p50} ms, p99 ${runs[name].at(-1).p99} ms`,
      );
    }
  }
  await hubs.stop();
  const summary = Object.fromEntries(
    order.map((name) => [
      name,
      { p50: median(runs[name].map((r) => r.p50)), p99: median(runs[name].map((r) => r.p99)), rounds: runs[name] },
    ]),
  );
  const ratio = (way, p) => Number((summary[way][p] / summary.direct[p]).toFixed(2));
  const ratios = Object.fromEntries(
    ['inbox', 'attach'].map((way) => [way, { p50: ratio(way, 'p50'), p99: ratio(way, 'p99') }]),
  );
  for (const way of ['inbox', 'attach']) {
    console.log(
      `${store}: through the hub (${way}) / direct = ${ratios[way].p50}x at p50, ${ratios[way].p99}x at p99 ` +
        `(${summary[way].p50} / ${summary.direct.p50} ms, ${summary[way].p99} / ${summary.direct.p99} ms)`,
    );
  }
  return { summary, ratios };
}

runMain(async () => {
  const stores = parseOnly(process.argv.slice(2), ['sqlite', 'postgres']);
  console.log(
    `relay bench: ${SENDS} blocking sends one after another per server and round, ${ROUNDS} rounds, node ${process.version}`,
  );
  const port = await freePort();
  const child = await startChild(
    'relay-reference',
    ['bench/reference-server.mjs', String(port), '--answer'],
    {},
    `http://127.0.0.1:${port}/.well-known/agent-card.json`,
  );
  atCleanUp(child.stop);
  const reference = { url: `http://127.0.0.1:${port}/a2a/jsonrpc` };
  const { results, pgInfo, loadStart } = await runStores(stores, (store, admin) => runStore(store, admin, reference));
  writeResults('relay.json', {
    sends: SENDS,
    rounds: ROUNDS,
    node: process.version,
    loadStart,
    pgInfo,
    results: Object.fromEntries(stores.map((s, i) => [s, results[i]])),
  });
});
