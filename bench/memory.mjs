// Memory boards at 100,000 cards, on each store: how fast boards fill, how fast single cards are
// appended to one board by 20 agents at once (and that none is lost), and how long a recall
// across many boards takes. Per store:
//   sqlite      one hub on a fresh SQLite file
//   postgres-1  one hub on a fresh PostgreSQL database
//   postgres-2  two hubs on one fresh PostgreSQL database, every phase's calls split round-robin
//
//   npm run build && node bench/memory.mjs [--only sqlite,postgres-1,postgres-2]
//   env: MEMORY_CARDS (cards of the fill, default 100000), MEMORY_WRITERS (fill calls in flight,
//        default 8), MEMORY_AGENTS (agents owning the fill's boards, default 10),
//        MEMORY_REMEMBERS (single-card board.remember calls into one board, default 1999: the
//        board's first card and these fill it to its 2,000), MEMORY_REMEMBER_CALLERS (agents
//        appending at once, default 20), MEMORY_RECALLS (default 1000), MEMORY_RECALLERS
//        (default 10), MEMORY_BOARD_FILE (on, the default: calls accept every output mode, so
//        create/remember/read answer the whole board as a file; off: acceptedOutputModes
//        text/plain and application/json, without it), BENCH_PG_ADMIN_URL
//
// Every hub is `dist/cli/main.js serve` with MUSTER_LOG_LEVEL=warn and MUSTER_RATE_LIMITS=off (an
// agent makes more than 600 memory calls a minute here). PostgreSQL databases are created on
// BENCH_PG_ADMIN_URL's server and dropped at the end, also after a failure or Ctrl-C. Raw
// figures: bench/results/memory.json (MEMORY_BOARD_FILE=off: memory-no-board-file.json). Exit
// code 1 when a check failed (an answer that was not what the call should answer counts).
//
// The pieces are under bench/memory/: settings.mjs (the MEMORY_* settings and the hub's limits),
// workload.mjs (the cards, queries and boards), measure.mjs (a skill call, CPU, database size),
// phases.mjs (fill, remember, recall); this file runs them on each store and checks the outcome.
import os from 'node:os';
import {
  finishChecked,
  parseOnly,
  registerAgent,
  runMachine,
  runMain,
  runStores,
  startHubs,
  storeDatabase,
} from './lib.mjs';
import { databaseSizes, mb } from './memory/measure.mjs';
import { fillBoards, recallAcrossBoards, rememberIntoOneBoard } from './memory/phases.mjs';
import {
  AGENTS,
  BOARD_FILE,
  BOARDS,
  CARDS,
  PER_BOARD,
  RECALL_LIMIT,
  RECALLERS,
  RECALLS,
  REMEMBER_CALLERS,
  REMEMBERS,
  STORES,
  WRITERS,
} from './memory/settings.mjs';
import { TAG_COUNT, VOCABULARY_SIZE } from './memory/workload.mjs';

// ---------------------------------------------------------------- one store

/** `count` agents `<prefix>-01`… registered through `base`, with their tokens. */
async function registerAgents(base, prefix, count) {
  const agents = [];
  for (let i = 0; i < count; i++) {
    const handle = `${prefix}-${String(i + 1).padStart(2, '0')}`;
    agents.push({ handle, token: (await registerAgent(base, handle)).token });
  }
  return agents;
}

/** Whether every phase's answers and the store's contents were what they should be. */
function checkStore({ filled, remembered, recalled, unexpected }) {
  const { wrongCount, filledCards } = filled;
  const { added, read, readCards, readIds, positions, missing, fullRefused, after } = remembered;
  const { found, forbidden } = recalled;
  const byPhase = (phase) => unexpected.filter((u) => u.phase === phase).length;
  const checks = {
    fillAnswered: byPhase('fill') === 0,
    fillCounted: wrongCount.length === 0 && filledCards === CARDS,
    filledCards,
    rememberAnswered: byPhase('remember') === 0 && added.length === REMEMBERS,
    noCardLost:
      !read.answer &&
      readCards.length === REMEMBERS + 1 &&
      readIds.size === readCards.length &&
      missing.length === 0 &&
      (positions.length === 0 || positions.every((p, i) => p === i)) &&
      after.data?.board?.cards === REMEMBERS + 1,
    positionsChecked: positions.length > 0,
    ...(fullRefused === null ? {} : { fullBoardRefused: fullRefused }),
    recallsAnswered: byPhase('recall') === 0 && found.length === RECALLS,
    recallOnlyReadableBoards: forbidden === 0,
    unexpectedAnswers: unexpected.length,
  };
  const ok =
    checks.fillAnswered &&
    checks.fillCounted &&
    checks.rememberAnswered &&
    checks.noCardLost &&
    checks.fullBoardRefused !== false &&
    checks.recallsAnswered &&
    checks.recallOnlyReadableBoards;
  return { checks, ok };
}

async function runStore(name, admin) {
  const processes = name === 'postgres-2' ? 2 : 1;
  const store = await storeDatabase(name, admin, 'memory.db');
  console.log(`\n${name}: starting ${processes} hub(s) on ${store.database ?? store.db}`);
  const hubs = await startHubs({ name, db: store.db, processes });
  const bases = hubs.bases.map((base) => `${base}/`);
  let calls = 0;
  const nextHub = () => bases[calls++ % bases.length]; // every call of every phase, round-robin
  const unexpected = []; // { phase, request, answer }
  const refuse = (phase, request, answer) => {
    unexpected.push({ phase, request, answer });
    if (unexpected.length <= 5) console.log(`  UNEXPECTED in ${phase}: ${request} -> ${answer}`);
  };
  const run = { bases, nextHub, refuse, pids: hubs.pids };
  let stopped = false;
  try {
    const agents = await registerAgents(hubs.bases[0], 'mem-agent', AGENTS);
    const callers = await registerAgents(hubs.bases[0], 'mem-caller', REMEMBER_CALLERS);
    const filled = await fillBoards(run, agents);
    const remembered = await rememberIntoOneBoard(run, callers);
    const recalled = await recallAcrossBoards(run, agents, filled);

    await hubs.stop();
    stopped = true;
    const sizes = await databaseSizes(store);

    const { checks, ok } = checkStore({ filled, remembered, recalled, unexpected });
    const { wrongCount, listed } = filled;
    const { missing } = remembered;
    console.log(
      `  database: ${mb(sizes.bytes)} MB; checks: ${ok ? 'all passed' : 'FAILED'} (${JSON.stringify(checks)})`,
    );
    if (!ok)
      console.log(
        `  examples: ${JSON.stringify({ wrongCount: wrongCount.slice(0, 3).map((b) => ({ id: b.id, expected: b.cards, listed: listed.get(b.id)?.cards })), missing: missing.slice(0, 3), unexpected: unexpected.slice(0, 5) })}`,
      );
    return {
      store: name,
      hubs: processes,
      database: store.database,
      fill: filled.fill,
      remember: remembered.remember,
      recall: recalled.recall,
      databaseBytes: sizes.bytes,
      largestTables: sizes.largest,
      checks,
      ok,
      examples: {
        wrongCount: wrongCount.slice(0, 3).map((b) => b.id),
        missing: missing.slice(0, 3),
        unexpected: unexpected.slice(0, 10),
      },
    };
  } finally {
    if (!stopped) await hubs.stop();
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const names = parseOnly(process.argv.slice(2), STORES);
  console.log(
    `memory bench: ${CARDS} cards (${BOARDS} boards of at most ${PER_BOARD}, ${AGENTS} agents, ${WRITERS} calls in flight), ` +
      `${REMEMBERS} remembers by ${REMEMBER_CALLERS} agents, ${RECALLS} recalls by ${RECALLERS}; board file ${BOARD_FILE ? 'answered' : 'not asked for'}; ` +
      `node ${process.version}, ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  const { results, pgInfo, loadStart } = await runStores(names, runStore);
  const rows = [
    [
      'store',
      'hubs',
      'fill cards/s',
      'remember calls/s',
      'p50 ms',
      'p99 ms',
      'recalls/s',
      'p50 ms',
      'p99 ms',
      'db MB',
      'checks',
    ],
  ];
  for (const r of results) {
    rows.push([
      r.store,
      String(r.hubs),
      String(r.fill.cardsPerSecond),
      String(r.remember.callsPerSecond),
      String(r.remember.latencyMs.p50),
      String(r.remember.latencyMs.p99),
      String(r.recall.recallsPerSecond),
      String(r.recall.latencyMs.p50),
      String(r.recall.latencyMs.p99),
      String(mb(r.databaseBytes)),
      r.ok ? 'passed' : 'FAILED',
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  console.log('');
  for (const row of rows)
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  finishChecked(
    BOARD_FILE ? 'memory.json' : 'memory-no-board-file.json',
    {
      ...runMachine(loadStart),
      settings: {
        cards: CARDS,
        boards: BOARDS,
        agents: AGENTS,
        writers: WRITERS,
        remembers: REMEMBERS,
        rememberCallers: REMEMBER_CALLERS,
        recalls: RECALLS,
        recallers: RECALLERS,
        recallLimit: RECALL_LIMIT,
        boardFile: BOARD_FILE,
        vocabulary: VOCABULARY_SIZE,
        tags: TAG_COUNT,
        musterEnv: { MUSTER_RATE_LIMITS: 'off', MUSTER_LOG_LEVEL: 'warn' },
      },
      ...(pgInfo ? { postgres: pgInfo } : {}),
      results,
    },
    results,
  );
}

runMain(main);
