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
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  ADMIN_TOKEN,
  cpuSeconds,
  expectStatus,
  http,
  latency,
  parseOnly,
  pool,
  registerAgent,
  startHubs,
  finishChecked,
  runMain,
  runMachine,
  runStores,
  storeDatabase,
} from './lib.mjs';

const env = (name, fallback) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got "${process.env[name]}"`);
  return v;
};
const CARDS = env('MEMORY_CARDS', 100_000);
const WRITERS = env('MEMORY_WRITERS', 8);
const AGENTS = env('MEMORY_AGENTS', 10);
const REMEMBERS = env('MEMORY_REMEMBERS', 1999);
const REMEMBER_CALLERS = env('MEMORY_REMEMBER_CALLERS', 20);
const RECALLS = env('MEMORY_RECALLS', 1000);
const RECALLERS = env('MEMORY_RECALLERS', 10);
const BOARD_FILE = (process.env.MEMORY_BOARD_FILE ?? 'on') === 'on';
if (!['on', 'off'].includes(process.env.MEMORY_BOARD_FILE ?? 'on'))
  throw new Error(`MEMORY_BOARD_FILE must be on or off, got "${process.env.MEMORY_BOARD_FILE}"`);

// The hub's limits (docs/memory-boards.md).
const PER_CALL = 100;
const PER_BOARD = 2000;
const BOARDS_PER_AGENT = 100;
const SHARED_WITH = 50;
const RECALL_LIMIT = 10;

const BOARDS = Math.ceil(CARDS / PER_BOARD);
if (BOARDS > AGENTS * BOARDS_PER_AGENT)
  throw new Error(
    `MEMORY_CARDS=${CARDS} needs ${BOARDS} boards: more than ${AGENTS} agents may own (${BOARDS_PER_AGENT} each); raise MEMORY_AGENTS`,
  );
if (REMEMBERS + 1 > PER_BOARD)
  throw new Error(
    `MEMORY_REMEMBERS=${REMEMBERS}: the board holds its first card and these, at most ${PER_BOARD} (so at most ${PER_BOARD - 1})`,
  );
if (REMEMBER_CALLERS > SHARED_WITH + 1)
  throw new Error(
    `MEMORY_REMEMBER_CALLERS=${REMEMBER_CALLERS}: a shared board names at most ${SHARED_WITH} agents besides its owner`,
  );

const STORES = ['sqlite', 'postgres-1', 'postgres-2'];
const BOARD_TYPE = 'application/vnd.muster.board+json';
const NO_BOARD_FILE = { acceptedOutputModes: ['text/plain', 'application/json'] };

// ---------------------------------------------------------------- the text: a seeded vocabulary

/** mulberry32: a small seeded PRNG, [0, 1). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCABULARY_SIZE = 3000;
const TAG_COUNT = 40;
// The hub's stop words (src/hub/kinds/memory/words.ts), which no generated word may be.
const STOP = new Set(
  'a an and are as at be but by do does did for from had has have how i in is it its of on or our so that the their them then there these they this to was we were what when where which who why will with you your about know'.split(
    ' ',
  ),
);

/** `count` distinct pronounceable words of 2–3 syllables, in the order `rand` draws them (their rank). */
function makeWords(rand, count, taken = new Set()) {
  const onsets = [
    'b',
    'br',
    'c',
    'ch',
    'd',
    'dr',
    'f',
    'g',
    'gr',
    'h',
    'j',
    'k',
    'l',
    'm',
    'n',
    'p',
    'pr',
    'qu',
    'r',
    's',
    'sh',
    'st',
    't',
    'tr',
    'v',
    'w',
    'z',
  ];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
  const codas = ['', '', '', 'n', 'r', 's', 'l', 'm', 'x', 'nd', 'st'];
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const words = [];
  while (words.length < count) {
    const syllables = 2 + Math.floor(rand() * 2);
    let w = '';
    for (let i = 0; i < syllables; i++) w += pick(onsets) + pick(vowels) + pick(codas);
    if (!STOP.has(w) && !taken.has(w)) (taken.add(w), words.push(w));
  }
  return words;
}

/** Draws indexes 0…n-1 with P(rank r) ∝ 1 / (r + 1)^s. */
function zipf(n, s, rand) {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) cumulative[r] = total += 1 / (r + 1) ** s;
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const vocabularyRand = prng(20261201);
const taken = new Set();
const VOCABULARY = makeWords(vocabularyRand, VOCABULARY_SIZE, taken);
const TAGS = makeWords(vocabularyRand, TAG_COUNT, taken);

/**
 * The fill's cards, board by board, the same on every store (a fresh stream from one seed): 6–20
 * vocabulary words (Zipf, s = 0.8: the top word is in about half the cards, the median one in
 * 0.2 %) and 0–3 `#tags` (Zipf, s = 1); one card in five an object with a title of 2–4 words.
 */
function makeCards(boards) {
  const rand = prng(1);
  const word = zipf(VOCABULARY_SIZE, 0.8, rand);
  const tag = zipf(TAG_COUNT, 1.0, rand);
  const card = () => {
    const words = Array.from({ length: 6 + Math.floor(rand() * 15) }, () => VOCABULARY[word()]);
    const r = rand();
    const tagCount = r < 0.3 ? 0 : r < 0.7 ? 1 : r < 0.9 ? 2 : 3;
    const tags = [...new Set(Array.from({ length: tagCount }, () => TAGS[tag()]))];
    const text = [...words, ...tags.map((t) => `#${t}`)].join(' ');
    if (rand() >= 0.2) return text;
    const title = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => VOCABULARY[word()]).join(' ');
    return { text, title: title[0].toUpperCase() + title.slice(1) };
  };
  return boards.map((b) => Array.from({ length: b.cards }, card));
}

/** The recall queries: 1–3 vocabulary words (drawn as the cards draw them), three in ten with a `#tag`. */
function makeQueries(count) {
  const rand = prng(7);
  const word = zipf(VOCABULARY_SIZE, 0.8, rand);
  const tag = zipf(TAG_COUNT, 1.0, rand);
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => VOCABULARY[word()]);
    if (rand() < 0.3) words.push(`#${TAGS[tag()]}`);
    return words.join(' ');
  });
}

// ---------------------------------------------------------------- the boards of the fill

/**
 * Board b: owned by agent b mod AGENTS, cards min(2,000, what is left). Its visibility by its
 * place among its owner's boards (k = floor(b / AGENTS) mod 5): 0 and 1 public, 2 shared with the
 * next agent, 3 and 4 private; so a caller reads about half of the boards (its own, the public
 * ones, one shared with it) and never the others' private ones.
 */
function planBoards(agents) {
  return Array.from({ length: BOARDS }, (_, b) => {
    const k = Math.floor(b / AGENTS) % 5;
    const owner = agents[b % AGENTS];
    const visibility = k <= 1 ? 'public' : k === 2 ? 'shared' : 'private';
    const sharedWith = visibility === 'shared' && agents.length > 1 ? [agents[(b + 1) % AGENTS].handle] : [];
    return {
      index: b,
      title: `Memory bench board ${b + 1}`,
      owner,
      visibility: visibility === 'shared' && !sharedWith.length ? 'private' : visibility,
      sharedWith,
      cards: Math.min(PER_BOARD, CARDS - b * PER_BOARD),
    };
  });
}

const mayRead = (board, handle) =>
  board.visibility === 'public' || board.owner.handle === handle || board.sharedWith.includes(handle);

/**
 * How many cards of the boards `handle` may read a query matches, as the hub's recall reads it:
 * a card matches when a word of the query begins one of its words (text, title, tags) or it
 * carries one of the query's `#tags`. From the cards the driver sent, after the timing.
 */
function matchCounter(boards, cardsOf) {
  const postings = new Map(); // word -> card numbers; tag -> card numbers under '#word'
  const boardOf = [];
  const add = (key, n) => {
    const list = postings.get(key);
    if (!list) postings.set(key, [n]);
    else if (list.at(-1) !== n) list.push(n);
  };
  boards.forEach((board, b) =>
    cardsOf[b].forEach((card) => {
      const n = boardOf.push(b) - 1;
      const text = typeof card === 'string' ? card : `${card.text} ${card.title}`;
      for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu)) add(w, n);
      for (const [, t] of text.matchAll(/#([\p{L}\p{N}]+)/gu)) add(`#${t.toLowerCase()}`, n);
    }),
  );
  const words = [...postings.keys()].filter((k) => !k.startsWith('#'));
  const seen = new Uint32Array(boardOf.length);
  let stamp = 0;
  return (query, handle) => {
    stamp++;
    let count = 0;
    const lists = [];
    for (const term of query.toLowerCase().split(' ')) {
      if (term.startsWith('#')) lists.push(postings.get(term) ?? []);
      else for (const w of words) if (w.startsWith(term)) lists.push(postings.get(w));
    }
    for (const list of lists) {
      for (const n of list) {
        if (seen[n] === stamp) continue;
        seen[n] = stamp;
        if (mayRead(boards[boardOf[n]], handle)) count++;
      }
    }
    return count;
  };
}

const MATCH_BUCKETS = [
  [0, 1000],
  [1000, 10_000],
  [10_000, 30_000],
  [30_000, Infinity],
];
/** Recall latency by the number of readable cards the query matches, and the slowest queries. */
function latencyByMatches(recalled, matches) {
  const rows = recalled.map((r) => ({ ...r, matches: matches(r.query, r.caller) }));
  const label = ([lo, hi]) => (hi === Infinity ? `${lo}+` : `${lo}-${hi - 1}`);
  return {
    matchesPerQuery: latency(rows.map((r) => r.matches)),
    latencyByMatches: Object.fromEntries(
      MATCH_BUCKETS.map((bucket) => [
        label(bucket),
        latency(rows.filter((r) => r.matches >= bucket[0] && r.matches < bucket[1]).map((r) => r.ms)),
      ]),
    ),
    slowest: [...rows]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((r) => ({ query: r.query, matches: r.matches, ms: Number(r.ms.toFixed(1)) })),
  };
}

// ---------------------------------------------------------------- memory calls

/**
 * One skill call at a memory base: `{ ms, task, data, answer }`. `data` is the result's data part
 * when the call completed; `answer` (HTTP status and body) is kept for the report otherwise.
 */
async function callSkill(base, token, skill, args, { boardFile = BOARD_FILE } = {}) {
  const params = {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, args } }] },
    ...(boardFile ? {} : { configuration: NO_BOARD_FILE }),
  };
  const t0 = performance.now();
  const res = await http('POST', `${base}memory/`, {
    token,
    body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params },
  });
  const took = performance.now() - t0;
  const task = res.body?.result?.task;
  const completed = res.status === 200 && task?.status?.state === 'TASK_STATE_COMPLETED';
  const data = completed
    ? task.artifacts?.find((a) => a.artifactId === 'result')?.parts?.find((p) => p.data)?.data
    : undefined;
  return {
    ms: took,
    task,
    data,
    answer: completed && data ? undefined : `HTTP ${res.status} ${res.text.slice(0, 400)}`,
  };
}

/** What a request was, for the report: the skill and its args, long lists cut short. */
const describe = (skill, args) =>
  JSON.stringify({
    skill,
    args: {
      ...args,
      ...(args.cards ? { cards: args.cards.length > 1 ? `[${args.cards.length} cards]` : args.cards } : {}),
    },
  });

// ---------------------------------------------------------------- CPU

/** Busy and total CPU time of the machine so far (/proc/stat), in clock ticks. */
function machineTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = fields.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - n[3] - (n[4] ?? 0), total };
}

/** Cores used by the hubs, this driver and the whole machine between start() and stop(). */
function cpuMeter(pids) {
  const hubs = pids.map(cpuSeconds);
  const driver = process.cpuUsage();
  const machine = machineTicks();
  const t0 = performance.now();
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const m = machineTicks();
    const used = process.cpuUsage(driver);
    const cores = (s) => Number((s / seconds).toFixed(2));
    return {
      hubCores: pids.map((pid, i) => cores((cpuSeconds(pid) ?? 0) - (hubs[i] ?? 0))),
      driverCores: cores((used.user + used.system) / 1e6),
      machineBusyCores: Number((((m.busy - machine.busy) / (m.total - machine.total)) * os.cpus().length).toFixed(2)),
    };
  };
}

// ---------------------------------------------------------------- what the database holds

async function databaseSizes(store) {
  if (store.sqliteFile) {
    const size = (f) => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    };
    const out = { bytes: size(store.sqliteFile) + size(`${store.sqliteFile}-wal`) };
    const db = new Database(store.sqliteFile, { readonly: true });
    try {
      const rows = db
        .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 8')
        .all();
      out.largest = Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
    } catch (err) {
      out.largest = `dbstat not available: ${err.message}`;
    } finally {
      db.close();
    }
    return out;
  }
  const client = new pg.Client({ connectionString: store.pgUrl });
  await client.connect();
  try {
    const bytes = Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
    const rows = (
      await client.query(
        `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY bytes DESC LIMIT 8`,
      )
    ).rows;
    return { bytes, largest: Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)])) };
  } finally {
    await client.end();
  }
}

const mb = (bytes) => Number((bytes / 1e6).toFixed(1));

// ---------------------------------------------------------------- one store

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
  let stopped = false;
  try {
    const agents = [];
    for (let i = 0; i < AGENTS; i++) {
      const handle = `mem-agent-${String(i + 1).padStart(2, '0')}`;
      agents.push({ handle, token: (await registerAgent(hubs.bases[0], handle)).token });
    }
    const callers = [];
    for (let i = 0; i < REMEMBER_CALLERS; i++) {
      const handle = `mem-caller-${String(i + 1).padStart(2, '0')}`;
      callers.push({ handle, token: (await registerAgent(hubs.bases[0], handle)).token });
    }

    // ------------------------------------------------------------ 1. fill
    // One chain of calls per board (board.create with its first 100 cards, then board.remember
    // of 100 at a time), WRITERS boards at once. The cards are the same on every store.
    const boards = planBoards(agents);
    const fillCards = makeCards(boards);
    const fillMs = [];
    let fileBytes = 0; // the largest board file (base64) an answer carried
    const bySize = Array.from({ length: PER_BOARD / 500 }, () => []); // remember latencies by the board's cards before the call
    const fillMeter = cpuMeter(hubs.pids);
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
    const listed = new Map();
    let cursor;
    do {
      const page = await expectStatus(
        'GET /api/boards',
        200,
        http('GET', `${bases[0]}api/boards?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          token: ADMIN_TOKEN,
        }),
      );
      for (const b of page.data) listed.set(b.id, b);
      cursor = page.hasMore ? page.cursor : undefined;
    } while (cursor);
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

    // ------------------------------------------------------------ 2. board.remember into one board
    // A fresh board owned by the first caller, shared with the others; REMEMBER_CALLERS agents
    // append one card per call, each call waiting for the last, the calls spread round-robin.
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
    const rememberMeter = cpuMeter(hubs.pids);
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

    // ------------------------------------------------------------ 3. recall across the boards
    const queries = makeQueries(RECALLS);
    const recallMs = [];
    const recalled = []; // { query, caller, ms }
    const found = [];
    const recallers = Array.from({ length: RECALLERS }, (_, i) => agents[i % agents.length]);
    const boardById = new Map(boards.map((b) => [b.id, b]));
    const readable = Object.fromEntries(
      agents.map((a) => [a.handle, boards.filter((b) => mayRead(b, a.handle)).length]),
    );
    let forbidden = 0;
    let nextQuery = 0;
    const recallMeter = cpuMeter(hubs.pids);
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

    await hubs.stop();
    stopped = true;
    const sizes = await databaseSizes(store);

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
      fill,
      remember,
      recall,
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
