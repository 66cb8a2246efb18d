/**
 * What a board's shape says, computed from its cards and connections (a board is bounded, see
 * limits.ts): its hubs, its orphans, its open questions, and the connections it seems to lack.
 */
import type { CardRecord, ConnectionRecord } from '../../store/store.js';
import { searchWords } from './words.js';

export interface Insights {
  /** The most connected cards, most first (connections and links both count). */
  hubs: { card: CardRecord; degree: number }[];
  /** Cards with no connection or link, either way. */
  orphans: CardRecord[];
  /** Cards that ask (a `?`) and that nothing answers: no `answers` connection to them. */
  openQuestions: CardRecord[];
}

/** A connection `board.connect` proposes: two cards that say the same things and are not connected. */
export interface Proposal {
  from: string;
  to: string;
  type: 'related';
  /** What the two cards share, for the person who confirms. */
  shared: string[];
}

const HUBS = 5;
const PROPOSALS = 20;
/** Words and tags two cards must share to be proposed as related. */
const MIN_SHARED = 2;
/** A term on more cards than this is too common to relate two of them (and would cost pairs by the square). */
const COMMON = 20;

/** Each card's neighbours, through connections and links, both ways. */
function neighbours(cards: readonly CardRecord[], connections: readonly ConnectionRecord[]): Map<string, Set<string>> {
  const ids = new Set(cards.map((c) => c.id));
  const around = new Map(cards.map((c) => [c.id, new Set<string>()]));
  const join = (a: string, b: string) => {
    if (a === b || !ids.has(a) || !ids.has(b)) return;
    around.get(a)!.add(b);
    around.get(b)!.add(a);
  };
  for (const c of connections) join(c.from, c.to);
  for (const card of cards) for (const link of card.links) join(card.id, link);
  return around;
}

export function insights(cards: readonly CardRecord[], connections: readonly ConnectionRecord[]): Insights {
  const around = neighbours(cards, connections);
  const degree = (c: CardRecord) => around.get(c.id)!.size;
  const answered = new Set(connections.filter((c) => c.type === 'answers').map((c) => c.to));
  return {
    hubs: cards
      .filter((c) => degree(c) > 0)
      .sort((a, b) => degree(b) - degree(a) || a.position - b.position)
      .slice(0, HUBS)
      .map((card) => ({ card, degree: degree(card) })),
    orphans: cards.filter((c) => degree(c) === 0),
    openQuestions: cards.filter((c) => c.text.includes('?') && !answered.has(c.id)),
  };
}

/**
 * Pairs of unconnected cards sharing at least two words or tags, those sharing most first. Found
 * through each term's cards (a term on more than COMMON cards says nothing), not by comparing
 * every pair, so a full board stays quick.
 */
export function proposeConnections(cards: readonly CardRecord[], connections: readonly ConnectionRecord[]): Proposal[] {
  const around = neighbours(cards, connections);
  const cardsOf = new Map<string, number[]>();
  cards.forEach((c, i) => {
    for (const term of new Set([...searchWords(`${c.title ?? ''} ${c.text}`), ...c.tags.map((t) => `#${t}`)])) {
      const holders = cardsOf.get(term);
      if (holders) holders.push(i);
      else cardsOf.set(term, [i]);
    }
  });
  const sharedBy = new Map<string, { from: number; to: number; shared: string[] }>();
  for (const [term, holders] of cardsOf) {
    if (holders.length > COMMON) continue;
    for (let a = 0; a < holders.length; a++) {
      for (let b = a + 1; b < holders.length; b++) {
        const key = `${holders[a]} ${holders[b]}`;
        const pair = sharedBy.get(key) ?? { from: holders[a]!, to: holders[b]!, shared: [] };
        sharedBy.set(key, pair);
        pair.shared.push(term);
      }
    }
  }
  return [...sharedBy.values()]
    .filter((p) => p.shared.length >= MIN_SHARED && !around.get(cards[p.from]!.id)!.has(cards[p.to]!.id))
    .sort((x, y) => y.shared.length - x.shared.length || x.from - y.from || x.to - y.to)
    .slice(0, PROPOSALS)
    .map((p) => ({ from: cards[p.from]!.id, to: cards[p.to]!.id, type: 'related' as const, shared: p.shared }));
}
