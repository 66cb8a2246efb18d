// What the memory bench writes and asks, the same on every store: cards and recall queries drawn
// from a seeded vocabulary, the boards of the fill with their owners and visibility, and how many
// readable cards a query matches (to group recall latencies by it).
import { latency } from '../lib.mjs';
import { AGENTS, BOARDS, CARDS, PER_BOARD } from './settings.mjs';

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

export const VOCABULARY_SIZE = 3000;
export const TAG_COUNT = 40;
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
export const VOCABULARY = makeWords(vocabularyRand, VOCABULARY_SIZE, taken);
const TAGS = makeWords(vocabularyRand, TAG_COUNT, taken);

/**
 * The fill's cards, board by board, the same on every store (a fresh stream from one seed): 6–20
 * vocabulary words (Zipf, s = 0.8: the top word is in about half the cards, the median one in
 * 0.2 %) and 0–3 `#tags` (Zipf, s = 1); one card in five an object with a title of 2–4 words.
 */
export function makeCards(boards) {
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
export function makeQueries(count) {
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
export function planBoards(agents) {
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

export const mayRead = (board, handle) =>
  board.visibility === 'public' || board.owner.handle === handle || board.sharedWith.includes(handle);

/**
 * How many cards of the boards `handle` may read a query matches, as the hub's recall reads it:
 * a card matches when a word of the query begins one of its words (text, title, tags) or it
 * carries one of the query's `#tags`. From the cards the driver sent, after the timing.
 */
export function matchCounter(boards, cardsOf) {
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
export function latencyByMatches(recalled, matches) {
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
