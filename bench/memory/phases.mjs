// The memory bench's three phases on one store's hubs. Each takes the run ({ bases, nextHub,
// refuse, pids }: the hubs' bases, the next hub round-robin, where unexpected answers are said,
// the hubs' processes), prints its line and answers its figures with what the checks need.
import { ADMIN_TOKEN, expectStatus, http, latency, pool } from '../lib.mjs';
import { callSkill, cpuMeter, describe } from './measure.mjs';
import {
  AGENTS,
  CARDS,
  PER_BOARD,
  PER_CALL,
  RECALL_LIMIT,
  RECALLERS,
  RECALLS,
  REMEMBER_CALLERS,
  REMEMBERS,
  WRITERS,
} from './settings.mjs';
import {
  latencyByMatches,
  makeCards,
  makeQueries,
  matchCounter,
  mayRead,
  planBoards,
  VOCABULARY,
  VOCABULARY_SIZE,
} from './workload.mjs';

/** Every board on the hub at `base` by id, as GET /api/boards lists them to the admin (every page). */
async function listBoards(base) {
  const listed = new Map();
  let cursor;
  do {
    const page = await expectStatus(
      'GET /api/boards',
      200,
      http('GET', `${base}api/boards?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        token: ADMIN_TOKEN,
      }),
    );
    for (const b of page.data) listed.set(b.id, b);
    cursor = page.hasMore ? page.cursor : undefined;
  } while (cursor);
  return listed;
}

/**
 * 1. Fill: one chain of calls per board (board.create with its first 100 cards, then
 * board.remember of 100 at a time), WRITERS boards at once. The cards are the same on every store.
 */
export async function fillBoards({ bases, nextHub, refuse, pids }, agents) {
  const boards = planBoards(agents);
  const fillCards = makeCards(boards);
  const fillMs = [];
  let fileBytes = 0; // the largest board file (base64) an answer carried
  const bySize = Array.from({ length: PER_BOARD / 500 }, () => []); // remember latencies by the board's cards before the call
  const fillMeter = cpuMeter(pids);
  const filling = performance.now();
  await pool(boards.length, WRITERS, async (b) => {
    const board = boards[b];
    const cards = fillCards[b];
    for (let at = 0; at < cards.length; at += PER_CALL) {
      const chunk = cards.slice(at, at + PER_CALL);
      const skill = at === 0 ? 'board.create' : 'board.remember';
      const args =
        at === 0
          ? {
              title: board.title,
              cards: chunk,
              visibility: board.visibility,
              ...(board.sharedWith.length ? { sharedWith: board.sharedWith } : {}),
            }
          : { board: board.id, cards: chunk };
      const r = await callSkill(nextHub(), board.owner.token, skill, args);
      fillMs.push(r.ms);
      if (at > 0) bySize[Math.floor(at / 500)].push(r.ms);
      if (
        r.answer ||
        r.data?.board?.cards !== at + chunk.length ||
        (at > 0 && r.data?.added?.length !== chunk.length)
      ) {
        refuse(
          'fill',
          describe(skill, args),
          r.answer ??
            `COMPLETED but board.cards=${r.data?.board?.cards}, added=${r.data?.added?.length} (expected ${at + chunk.length}, ${chunk.length})`,
        );
        if (at === 0) return; // no board to go on with
      }
      if (at === 0) board.id = r.data.board.id;
      const file = r.task?.artifacts?.find((a) => a.artifactId === 'board')?.parts?.[0]?.raw; // inline up to 256 KiB, a link beyond
      if (file) fileBytes = Math.max(fileBytes, file.length);
    }
  });
  const fillSec = (performance.now() - filling) / 1000;
  const fillCpu = fillMeter();

  // Every board holds what was sent to it (GET /api/boards as the admin, every page).
  const listed = await listBoards(bases[0]);
  const wrongCount = boards.filter(
    (b) => listed.get(b.id)?.cards !== b.cards || listed.get(b.id)?.visibility !== b.visibility,
  );
  const filledCards = boards.reduce((n, b) => n + (listed.get(b.id)?.cards ?? 0), 0);
  const fill = {
    cards: CARDS,
    boards: boards.length,
    agents: AGENTS,
    calls: fillMs.length,
    inFlight: WRITERS,
    seconds: Number(fillSec.toFixed(2)),
    cardsPerSecond: Math.round(CARDS / fillSec),
    callsPerSecond: Math.round(fillMs.length / fillSec),
    callLatencyMs: latency(fillMs),
    rememberLatencyByBoardSize: Object.fromEntries(bySize.map((v, i) => [`${i * 500}-${i * 500 + 499}`, latency(v)])),
    largestBoardFileBytes: fileBytes,
    ...fillCpu,
  };
  console.log(
    `  fill: ${CARDS} cards on ${boards.length} boards of ${AGENTS} agents in ${fill.seconds} s = ${fill.cardsPerSecond} cards/s ` +
      `(${fill.calls} calls of ${PER_CALL}, ${WRITERS} in flight, p50 ${fill.callLatencyMs.p50} ms, p99 ${fill.callLatencyMs.p99} ms; ` +
      `remember p50 by board size ${Object.entries(fill.rememberLatencyByBoardSize)
        .map(([k, v]) => `${k}: ${v.p50}`)
        .join(', ')} ms); ` +
      `hub CPU ${fillCpu.hubCores.join('+')} cores, driver ${fillCpu.driverCores}, machine ${fillCpu.machineBusyCores}`,
  );
  return { boards, fillCards, fill, listed, wrongCount, filledCards };
}

/**
 * 2. board.remember into one board: a fresh board owned by the first caller, shared with the
 * others; REMEMBER_CALLERS agents append one card per call, each call waiting for the last, the
 * calls spread round-robin.
 */
export async function rememberIntoOneBoard({ bases, nextHub, refuse, pids }, callers) {
  const owner = callers[0];
  const createArgs = {
    title: 'Memory bench remember board',
    cards: ['The board the remember phase appends to #bench'],
    visibility: 'shared',
    sharedWith: callers.slice(1).map((c) => c.handle),
  };
  const made = await callSkill(bases[0], owner.token, 'board.create', createArgs);
  if (made.answer) throw new Error(`${describe('board.create', createArgs)} -> ${made.answer}`);
  const rememberBoard = made.data.board.id;
  const rememberMs = [];
  const added = [];
  let nextCall = 0;
  const rememberMeter = cpuMeter(pids);
  const remembering = performance.now();
  await Promise.all(
    callers.map(async (caller) => {
      while (nextCall < REMEMBERS) {
        const i = nextCall++;
        const args = {
          board: rememberBoard,
          cards: [`Remembered by ${caller.handle}: call ${i} ${VOCABULARY[i % VOCABULARY_SIZE]} #remember`],
        };
        const r = await callSkill(nextHub(), caller.token, 'board.remember', args);
        rememberMs.push(r.ms);
        if (r.answer || r.data?.added?.length !== 1)
          refuse(
            'remember',
            describe('board.remember', args),
            r.answer ?? `COMPLETED but added=${JSON.stringify(r.data?.added)}`,
          );
        else added.push(r.data.added[0]);
      }
    }),
  );
  const rememberSec = (performance.now() - remembering) / 1000;
  const rememberCpu = rememberMeter();

  // The board afterwards, read by its owner: exactly its first card and one per call, once each, in places 0…N.
  const read = await callSkill(bases[0], owner.token, 'board.read', { board: rememberBoard }, { boardFile: true });
  // The answer lists the first cards only; the board file has them all, inline or (a large board) at its link.
  const file = read.task?.artifacts?.find((a) => a.artifactId === 'board')?.parts?.[0];
  const boardDoc =
    file?.raw !== undefined
      ? JSON.parse(Buffer.from(file.raw, 'base64').toString())
      : file?.url
        ? await (await fetch(file.url, { headers: { authorization: `Bearer ${owner.token}` } })).json()
        : undefined;
  const readCards = boardDoc?.cards ?? [];
  const readIds = new Set(readCards.map((c) => c.id));
  const positions = readCards.map((c) => c.position).sort((a, b) => a - b);
  const missing = added.filter((id) => !readIds.has(id));
  // Full: one more card must be refused with BOARD_FULL, and nothing written.
  let fullRefused = null;
  let fullAnswer;
  if (REMEMBERS + 1 === PER_BOARD) {
    const extra = { board: rememberBoard, cards: ['One card too many'] };
    const r = await callSkill(bases[bases.length - 1], callers[callers.length - 1].token, 'board.remember', extra);
    fullAnswer = r.answer;
    fullRefused = !r.data && /BOARD_FULL/.test(r.answer ?? '');
    if (!fullRefused)
      refuse(
        'remember',
        `${describe('board.remember', extra)} on a full board`,
        r.answer ?? `COMPLETED: ${JSON.stringify(r.data?.board)}`,
      );
  }
  const after = await callSkill(bases[0], owner.token, 'board.read', { board: rememberBoard }, { boardFile: false });
  const remember = {
    calls: REMEMBERS,
    callers: REMEMBER_CALLERS,
    sharing: 'one shared board: its owner and the agents it is shared with, one agent per caller',
    seconds: Number(rememberSec.toFixed(2)),
    callsPerSecond: Math.round(REMEMBERS / rememberSec),
    latencyMs: latency(rememberMs),
    cardsRead: readCards.length,
    expectedCards: REMEMBERS + 1,
    boardFileBytesAfter: file?.raw?.length ?? null,
    boardFileLinked: file?.url !== undefined,
    ...(fullAnswer !== undefined ? { oneMoreCardAnswer: fullAnswer } : {}),
    ...rememberCpu,
  };
  console.log(
    `  remember: ${REMEMBERS} single-card calls by ${REMEMBER_CALLERS} agents into one shared board in ${remember.seconds} s = ${remember.callsPerSecond} calls/s, ` +
      `p50 ${remember.latencyMs.p50} ms, p99 ${remember.latencyMs.p99} ms; board.read counts ${readCards.length} of ${REMEMBERS + 1}` +
      `${fullRefused === null ? '' : `; one more card ${fullRefused ? 'refused BOARD_FULL' : 'NOT refused'}`}; ` +
      `hub CPU ${rememberCpu.hubCores.join('+')} cores, driver ${rememberCpu.driverCores}, machine ${rememberCpu.machineBusyCores}`,
  );
  return { remember, added, read, readCards, readIds, positions, missing, fullRefused, after };
}

/** 3. Recall across the boards of the fill, RECALLERS agents at once. */
export async function recallAcrossBoards({ nextHub, refuse, pids }, agents, { boards, fillCards }) {
  const queries = makeQueries(RECALLS);
  const recallMs = [];
  const recalled = []; // { query, caller, ms }
  const found = [];
  const recallers = Array.from({ length: RECALLERS }, (_, i) => agents[i % agents.length]);
  const boardById = new Map(boards.map((b) => [b.id, b]));
  const readable = Object.fromEntries(agents.map((a) => [a.handle, boards.filter((b) => mayRead(b, a.handle)).length]));
  let forbidden = 0;
  let nextQuery = 0;
  const recallMeter = cpuMeter(pids);
  const recalling = performance.now();
  await Promise.all(
    recallers.map(async (caller) => {
      while (nextQuery < RECALLS) {
        const args = { query: queries[nextQuery++], limit: RECALL_LIMIT };
        const r = await callSkill(nextHub(), caller.token, 'board.recall', args);
        recallMs.push(r.ms);
        recalled.push({ query: args.query, caller: caller.handle, ms: r.ms });
        const cards = r.data?.cards;
        if (r.answer || !Array.isArray(cards) || cards.length > RECALL_LIMIT) {
          refuse(
            'recall',
            describe('board.recall', args),
            r.answer ?? `COMPLETED with ${Array.isArray(cards) ? cards.length : 'no list of'} cards`,
          );
          continue;
        }
        found.push(cards.length);
        const notReadable = cards.filter((c) => {
          const b = boardById.get(c.board?.id);
          return !b || !mayRead(b, caller.handle);
        });
        if (notReadable.length) {
          forbidden += notReadable.length;
          refuse(
            'recall',
            `${describe('board.recall', args)} by ${caller.handle}`,
            `answered cards of boards it may not read: ${notReadable.map((c) => c.board?.id).join(', ')}`,
          );
        }
      }
    }),
  );
  const recallSec = (performance.now() - recalling) / 1000;
  const recallCpu = recallMeter();
  const byMatches = latencyByMatches(recalled, matchCounter(boards, fillCards));
  const recall = {
    recalls: RECALLS,
    callers: RECALLERS,
    limit: RECALL_LIMIT,
    boardsReadablePerCaller: readable,
    cardsOnReadableBoards: Object.fromEntries(
      agents.map((a) => [a.handle, boards.filter((b) => mayRead(b, a.handle)).reduce((n, b) => n + b.cards, 0)]),
    ),
    seconds: Number(recallSec.toFixed(2)),
    recallsPerSecond: Math.round(RECALLS / recallSec),
    latencyMs: latency(recallMs),
    answersWithNoCard: found.filter((n) => n === 0).length,
    meanCards: Number((found.reduce((a, b) => a + b, 0) / Math.max(1, found.length)).toFixed(2)),
    ...byMatches,
    ...recallCpu,
  };
  console.log(
    `  recall: ${RECALLS} recalls by ${RECALLERS} agents (each reads ${Math.min(...Object.values(readable))}-${Math.max(...Object.values(readable))} of ${boards.length} boards) in ${recall.seconds} s = ` +
      `${recall.recallsPerSecond} recalls/s, p50 ${recall.latencyMs.p50} ms, p99 ${recall.latencyMs.p99} ms; ${recall.meanCards} cards an answer, ${recall.answersWithNoCard} found none; ` +
      `hub CPU ${recallCpu.hubCores.join('+')} cores, driver ${recallCpu.driverCores}, machine ${recallCpu.machineBusyCores}`,
  );
  console.log(
    `  recall by the cards its words match on the caller's boards (median ${byMatches.matchesPerQuery.p50}, max ${byMatches.matchesPerQuery.max}): ` +
      Object.entries(byMatches.latencyByMatches)
        .map(([k, v]) => `${k}: ${v.n} queries, p50 ${v.p50} ms, p99 ${v.p99} ms`)
        .join('; '),
  );
  return { recall, found, forbidden };
}
