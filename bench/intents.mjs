// Work intents under a claim race: 1,000 intents declared in one space, then 20 workers claiming
// them concurrently, each landing what it won, on each store. None may be claimed twice, none
// lost. Reports claims per second and the latency of a claim (p50, p99), per store:
//   sqlite      one hub on a fresh SQLite file
//   postgres-1  one hub on a fresh PostgreSQL database
//   postgres-2  two hubs on one fresh PostgreSQL database, the workers (and the declarations)
//               split between them
//
//   npm run build && node bench/intents.mjs [--only sqlite,postgres-1,postgres-2]
//   env: INTENTS (default 1000), INTENT_WORKERS (default 20), INTENT_DECLARERS (declarations in
//        flight, default 20), INTENT_PICK (first: every worker tries the page from its top, the
//        worst case for races; random: from a random place in it, wrapping; default first),
//        BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/test)
//
// Every hub is `dist/cli/main.js serve` with MUSTER_LOG_LEVEL=warn and MUSTER_RATE_LIMITS=off (one
// orchestrator declares 1,000 intents, past the 120 a minute of `intent.declare`). PostgreSQL
// databases are created on BENCH_PG_ADMIN_URL's server and dropped at the end, also after a
// failure or Ctrl-C. Raw figures: bench/results/intents.json. Exit code 1 when a check failed or
// a request was refused unexpectedly.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  ADMIN_TOKEN,
  cpuSeconds,
  expectStatus,
  http,
  latency,
  ms,
  parseOnly,
  percentile,
  pool,
  rpc,
  startHubs,
  finishChecked,
  runMain,
  runMachine,
  runStores,
  storeDatabase,
} from './lib.mjs';

const INTENTS = Number(process.env.INTENTS ?? 1000);
const WORKERS = Number(process.env.INTENT_WORKERS ?? 20);
const DECLARERS = Number(process.env.INTENT_DECLARERS ?? 20);
const PAGE = 50;
const PICK = process.env.INTENT_PICK ?? 'first';
if (PICK !== 'first' && PICK !== 'random') throw new Error(`INTENT_PICK must be first or random, got "${PICK}"`);
const SPACE = 'bench';
const STORES = ['sqlite', 'postgres-1', 'postgres-2'];
const OPEN_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED'];

for (const [name, v] of [
  ['INTENTS', INTENTS],
  ['INTENT_WORKERS', WORKERS],
  ['INTENT_DECLARERS', DECLARERS],
]) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got "${v}"`);
}

// ---------------------------------------------------------------- hubs and databases

/** Every event row of the hub's database: [{task_id, body}], for the once-each check. */
async function eventRows(store) {
  if (store.sqliteFile) {
    const db = new Database(store.sqliteFile, { readonly: true });
    try {
      return db.prepare('SELECT task_id, body FROM events').all();
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: store.pgUrl });
  await client.connect();
  try {
    return (await client.query('SELECT task_id, body FROM events')).rows;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- one store

async function runStore(name, admin) {
  const processes = name === 'postgres-2' ? 2 : 1;
  const store = await storeDatabase(name, admin, 'intents.db');
  const { db } = store;
  console.log(`\n${name}: starting ${processes} hub(s) on ${store.database ?? db}`);
  const hubs = await startHubs({ name, db, processes });
  const bases = hubs.bases.map((base) => `${base}/`);
  const hubOf = (i) => bases[i % bases.length];
  try {
    // Agents, the space and its members, all through the first hub.
    const register = async (handle) =>
      (
        await expectStatus(
          `register ${handle}`,
          201,
          http('POST', `${bases[0]}api/agents`, { token: ADMIN_TOKEN, body: { handle } }),
        )
      ).token;
    const owner = { handle: 'bench-owner', token: await register('bench-owner') };
    const orch = { handle: 'bench-orch', token: await register('bench-orch') };
    const workers = [];
    for (let i = 0; i < WORKERS; i++) {
      const handle = `bench-worker-${String(i + 1).padStart(2, '0')}`;
      workers.push({ handle, token: await register(handle), hub: hubOf(i) });
    }
    await expectStatus(
      'make the space',
      201,
      http('POST', `${bases[0]}api/spaces`, {
        token: owner.token,
        body: { name: SPACE, description: 'The intents bench' },
      }),
    );
    await expectStatus(
      'add the orchestrator',
      200,
      http('PUT', `${bases[0]}api/spaces/${SPACE}/members/${orch.handle}`, {
        token: owner.token,
        body: { role: 'orchestrator' },
      }),
    );
    for (const w of workers) {
      await expectStatus(
        `add ${w.handle}`,
        200,
        http('PUT', `${bases[0]}api/spaces/${SPACE}/members/${w.handle}`, {
          token: owner.token,
          body: { role: 'worker' },
        }),
      );
    }

    // Declare: SendMessage at the space's base, returnImmediately, distinct titles and footprints.
    const declared = new Set();
    const declareMs = [];
    const declaring = performance.now();
    await pool(INTENTS, DECLARERS, async (i) => {
      const t0 = performance.now();
      const result = await rpc(
        `${hubOf(i)}spaces/${SPACE}/`,
        'SendMessage',
        {
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [
              { text: `Bench intent number ${i}\nWork item ${i} of the intents bench.` },
              { data: { footprint: [`bench/area-${i}/**`] } },
            ],
          },
          configuration: { returnImmediately: true },
        },
        orch.token,
      );
      declareMs.push(performance.now() - t0);
      const task = result.task;
      if (task?.status?.state !== 'TASK_STATE_SUBMITTED' || task.metadata?.muster?.duplicateOf) {
        throw new Error(`declaration ${i} was not a new SUBMITTED intent: ${JSON.stringify(task).slice(0, 400)}`);
      }
      declared.add(task.id);
    });
    const declareSec = (performance.now() - declaring) / 1000;
    if (declared.size !== INTENTS) throw new Error(`${INTENTS} declarations made ${declared.size} intents`);
    console.log(
      `  declared ${INTENTS} intents in ${declareSec.toFixed(1)} s (${(INTENTS / declareSec).toFixed(0)}/s, ` +
        `p50 ${ms(percentile(declareMs, 50))} ms, p99 ${ms(percentile(declareMs, 99))} ms, ${DECLARERS} in flight)`,
    );

    // Work: every worker pages the claimable intents, claims down the page until one answers
    // 200 (409: taken, try the next), lands it, and pages again, until none is claimable.
    const wins = []; // {id, worker, ms}
    const lostMs = []; // claims answered 409
    const landMs = [];
    const pageMs = [];
    const unexpected = [];
    let conflicts = 0;
    const cpuBefore = hubs.pids.map(cpuSeconds);
    const working = performance.now();
    await Promise.all(
      workers.map(async (w) => {
        for (;;) {
          const t0 = performance.now();
          const page = await expectStatus(
            'page the claimable intents',
            200,
            http('GET', `${w.hub}api/spaces/${SPACE}/intents?state=claimable&limit=${PAGE}`, { token: w.token }),
          );
          pageMs.push(performance.now() - t0);
          if (page.data.length === 0) return;
          const from = PICK === 'random' ? Math.floor(Math.random() * page.data.length) : 0;
          for (const intent of [...page.data.slice(from), ...page.data.slice(0, from)]) {
            const c0 = performance.now();
            const claim = await http('POST', `${w.hub}api/tasks/${intent.id}/claim`, { token: w.token, body: {} });
            const took = performance.now() - c0;
            if (claim.status === 409) {
              conflicts++;
              lostMs.push(took);
              continue;
            }
            if (
              claim.status !== 200 ||
              claim.body?.status?.state !== 'TASK_STATE_WORKING' ||
              claim.body?.metadata?.muster?.worker !== w.handle
            ) {
              unexpected.push(`claim ${intent.id} by ${w.handle}: HTTP ${claim.status} ${claim.text.slice(0, 300)}`);
              continue;
            }
            wins.push({ id: intent.id, worker: w.handle, ms: took });
            const l0 = performance.now();
            const land = await http('POST', `${w.hub}api/tasks/${intent.id}/land`, {
              token: w.token,
              body: { summary: `Landed by ${w.handle}.` },
            });
            landMs.push(performance.now() - l0);
            if (land.status !== 200 || land.body?.status?.state !== 'TASK_STATE_COMPLETED') {
              unexpected.push(`land ${intent.id} by ${w.handle}: HTTP ${land.status} ${land.text.slice(0, 300)}`);
            }
            break; // page again: the rest of this page is likely taken by now
          }
        }
      }),
    );
    const workSec = (performance.now() - working) / 1000;
    const cpuAfter = hubs.pids.map(cpuSeconds);
    const hubCores = cpuAfter.map((s, i) => Number((((s ?? 0) - (cpuBefore[i] ?? 0)) / workSec).toFixed(2)));

    // Verify, from the hub: ListTasks at the space's base (no token: spaces are public).
    const claimedBy = new Map();
    for (const win of wins) claimedBy.set(win.id, [...(claimedBy.get(win.id) ?? []), win.worker]);
    const twice = [...claimedBy].filter(([, ws]) => ws.length > 1);
    const tasks = [];
    let pageToken;
    do {
      const page = await rpc(`${bases[0]}spaces/${SPACE}/`, 'ListTasks', {
        pageSize: 100,
        includeArtifacts: true,
        historyLength: 0,
        ...(pageToken ? { pageToken } : {}),
      });
      tasks.push(...page.tasks);
      pageToken = page.nextPageToken || undefined;
    } while (pageToken);
    const stillOpen = {};
    for (const state of OPEN_STATES)
      stillOpen[state] = (
        await rpc(`${bases[0]}spaces/${SPACE}/`, 'ListTasks', { status: state, pageSize: 1 })
      ).totalSize;
    const notCompleted = tasks.filter((t) => t.status.state !== 'TASK_STATE_COMPLETED');
    const wrongLander = tasks.filter((t) => {
      const landing = t.artifacts?.find((a) => a.name === 'Landing');
      const by = claimedBy.get(t.id)?.[0];
      return !landing || landing.parts[1]?.data?.worker !== by || t.metadata?.muster?.worker !== by;
    });
    const lost = [...declared].filter((id) => !claimedBy.has(id));

    // Once each, from the hub's event log: one WORKING (the claim) and one COMPLETED (the landing) per intent.
    await hubs.stop();
    const perTask = new Map();
    for (const row of await eventRows(store)) {
      if (!declared.has(row.task_id)) continue;
      const event = JSON.parse(row.body);
      const state = event.statusUpdate?.status?.state;
      if (!state) continue;
      const counts = perTask.get(row.task_id) ?? {};
      counts[state] = (counts[state] ?? 0) + 1;
      perTask.set(row.task_id, counts);
    }
    const notOnce = [...declared].filter((id) => {
      const c = perTask.get(id) ?? {};
      return c.TASK_STATE_WORKING !== 1 || c.TASK_STATE_COMPLETED !== 1 || Object.keys(c).length !== 2;
    });

    const checks = {
      intentsListed: tasks.length,
      everyOneCompleted: tasks.length === INTENTS && notCompleted.length === 0,
      noneLeftOpen: Object.values(stillOpen).every((n) => n === 0),
      stillOpen,
      successfulClaims: wins.length,
      noneClaimedTwice: twice.length === 0 && wins.length === INTENTS,
      noneLost: lost.length === 0,
      landedByItsClaimer: wrongLander.length === 0,
      onceEachInEventLog: notOnce.length === 0,
      unexpectedAnswers: unexpected.length,
    };
    const ok =
      checks.everyOneCompleted &&
      checks.noneLeftOpen &&
      checks.noneClaimedTwice &&
      checks.noneLost &&
      checks.landedByItsClaimer &&
      checks.onceEachInEventLog &&
      unexpected.length === 0;
    const result = {
      store: name,
      hubs: processes,
      intents: INTENTS,
      workers: WORKERS,
      pick: PICK,
      declare: {
        seconds: Number(declareSec.toFixed(2)),
        perSecond: Math.round(INTENTS / declareSec),
        latencyMs: latency(declareMs),
        inFlight: DECLARERS,
      },
      work: {
        seconds: Number(workSec.toFixed(2)),
        claimsPerSecond: Math.round(wins.length / workSec),
        claimLatencyMs: latency(wins.map((w) => w.ms)),
        lostClaimLatencyMs: latency(lostMs),
        landLatencyMs: latency(landMs),
        pageLatencyMs: latency(pageMs),
        conflicts409: conflicts,
        pages: pageMs.length,
        hubCores,
      },
      checks,
      ok,
      examples: {
        twice: twice.slice(0, 3),
        lost: lost.slice(0, 3),
        wrongLander: wrongLander.slice(0, 3).map((t) => t.id),
        notOnce: notOnce.slice(0, 3).map((id) => ({ id, counts: perTask.get(id) })),
        unexpected: unexpected.slice(0, 5),
      },
      database: store.database,
    };
    const c = result.work.claimLatencyMs;
    console.log(
      `  ${WORKERS} workers: ${wins.length} claims in ${workSec.toFixed(1)} s = ${result.work.claimsPerSecond} claims/s ` +
        `(each landed), claim p50 ${c.p50} ms, p99 ${c.p99} ms; ${conflicts} answered 409; hub CPU ${hubCores.join('+')} cores`,
    );
    console.log(`  checks: ${ok ? 'all passed' : 'FAILED'} (${JSON.stringify(checks)})`);
    if (!ok) console.log(`  examples: ${JSON.stringify(result.examples)}`);
    return result;
  } finally {
    await hubs.stop();
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const names = parseOnly(process.argv.slice(2), STORES);
  console.log(
    `intents bench: ${INTENTS} intents, ${WORKERS} workers, pages of ${PAGE}, claims from the page's ${PICK === 'first' ? 'top' : 'random place'}; node ${process.version}, ` +
      `${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  const { results, pgInfo, loadStart } = await runStores(names, runStore);
  console.log('\nstore       hubs  claims/s  claim p50 ms  claim p99 ms  409s  declare/s  checks');
  for (const r of results) {
    console.log(
      `${r.store.padEnd(10)}  ${String(r.hubs).padStart(4)}  ${String(r.work.claimsPerSecond).padStart(8)}  ` +
        `${String(r.work.claimLatencyMs.p50).padStart(12)}  ${String(r.work.claimLatencyMs.p99).padStart(12)}  ` +
        `${String(r.work.conflicts409).padStart(4)}  ${String(r.declare.perSecond).padStart(9)}  ${r.ok ? 'passed' : 'FAILED'}`,
    );
  }
  finishChecked(
    PICK === 'first' ? 'intents.json' : 'intents-random.json',
    {
      ...runMachine(loadStart),
      settings: {
        intents: INTENTS,
        workers: WORKERS,
        declarers: DECLARERS,
        page: PAGE,
        pick: PICK,
        musterEnv: { MUSTER_RATE_LIMITS: 'off', MUSTER_LOG_LEVEL: 'warn' },
      },
      ...(pgInfo ? { postgres: pgInfo } : {}),
      results,
    },
    results,
  );
}

runMain(main);
