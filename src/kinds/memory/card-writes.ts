/**
 * The cards and connections a memory write stores: ids the writer chose or ones derived from the
 * message (so a retried message writes the same cards, once), tags from `tags` and `#words`,
 * provenance stamped by the hub and the caller's own author name kept apart as a claim.
 */
import { createHash } from 'node:crypto';
import { invalidParams } from '../../errors/hub-error.js';
import type { CardRecord, NewCard, NewConnection } from '../../store/store.js';
import type { CardArg, ConnectionArg } from './args.js';
import { MEMORY_LIMITS as L } from './limits.js';
import { slug, tagsIn } from './words.js';

/** An id that a retried message derives again: uuid-shaped, from the message's seed and a place. */
export function derivedId(seed: string, place: string): string {
  const h = createHash('sha256').update(`${seed}\u0000${place}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface Writer {
  /** Provenance, as the hub knows the writer: `a2a:<handle>`. */
  writtenBy: string;
  now: number;
  /** Seeds the ids of what this call writes (the caller and the message id). */
  seed: string;
}

/**
 * The cards a call writes, with their ids, tags and provenance. An id given twice, or naming a
 * card of the board (`known`) with other content, is refused at `field`; the same card again (a
 * retried call) is kept, and the store writes it once.
 */
export function newCards(
  cards: readonly CardArg[],
  writer: Writer,
  field: string,
  known: ReadonlyMap<string, CardRecord> = new Map(),
): NewCard[] {
  const made = cards.map((arg, i) => {
    const card = typeof arg === 'string' ? { text: arg } : arg;
    const tags = [
      ...new Set([...(card.tags ?? []).map((t) => t.replace(/^#/, '').toLowerCase()), ...tagsIn(card.text)]),
    ].slice(0, L.tagsPerCard);
    const claimed = card.author === undefined ? undefined : slug(card.author, L.author);
    return {
      id: card.id ?? derivedId(writer.seed, `card ${i}`),
      text: card.text,
      ...(card.title !== undefined ? { title: card.title } : {}),
      tags,
      links: card.links ?? [],
      writtenBy: writer.writtenBy,
      ...(claimed !== undefined ? { claimedBy: claimed } : {}),
      createdAt: writer.now,
    };
  });
  const seen = new Map<string, number>();
  made.forEach((card, i) => {
    const first = seen.get(card.id);
    if (first !== undefined)
      throw invalidParams(
        `${field}[${i}].id`,
        `repeats the id of cards[${first}]`,
        'Give each card its own id, or none',
      );
    seen.set(card.id, i);
    const there = known.get(card.id);
    if (there && (there.text !== card.text || there.title !== card.title)) {
      throw invalidParams(
        `${field}[${i}].id`,
        `names a card already on the board (${card.id}), with other content`,
        'Give the new card another id, or none: the hub makes one',
      );
    }
  });
  return made;
}

/**
 * The connections a call writes, each end a place in `cards` or the id of a card in `cards` or
 * on the board (`known`); an end that names no card is refused, with its field.
 */
export function newConnections(
  connections: readonly ConnectionArg[],
  cards: readonly NewCard[],
  known: ReadonlySet<string>,
  writer: Writer,
  field: string,
): NewConnection[] {
  const ids = new Set([...known, ...cards.map((c) => c.id)]);
  const end = (ref: number | string, at: string): string => {
    const id = typeof ref === 'number' ? cards[ref]?.id : ref;
    if (id === undefined || !ids.has(id)) {
      throw invalidParams(
        at,
        typeof ref === 'number'
          ? `names card ${ref}, but this call has ${cards.length} cards (counted from 0)`
          : `names no card on this board: ${ref}`,
        'Name a card by its place in "cards" or by the id of a card on the board',
      );
    }
    return id;
  };
  return connections.map((c, i) => ({
    from: end(c.from, `${field}[${i}].from`),
    to: end(c.to, `${field}[${i}].to`),
    type: c.type,
    writtenBy: writer.writtenBy,
    createdAt: writer.now,
  }));
}

/** Links must name cards of the call or of the board. */
export function checkLinks(cards: readonly NewCard[], known: ReadonlySet<string>, field: string): void {
  const ids = new Set([...known, ...cards.map((c) => c.id)]);
  cards.forEach((card, i) =>
    card.links.forEach((link, j) => {
      if (!ids.has(link))
        throw invalidParams(
          `${field}[${i}].links[${j}]`,
          `names no card on this board: ${link}`,
          'Link to the id of a card on the board, or of a card in this call that has an "id"',
        );
    }),
  );
}
