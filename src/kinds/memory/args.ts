/**
 * What memory skills take, checked field by field (errors name `message.parts[0].data.args…`).
 * Wire schemas only, importing nothing of the hub: `muster board import` checks a file's cards
 * against them before sending any. What a write stores from them is card-writes.ts.
 */
import { z } from 'zod';
import { MEMORY_LIMITS as L } from './limits.js';

const CARD_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,79}$/;
const TAG = /^#?[\p{L}\p{N}][\p{L}\p{N}_-]*$/u;
const CONNECTION_TYPE = /^[a-z][a-z0-9_-]{0,39}$/;
const HANDLE = /^[a-z0-9-]{2,40}$/;

const text = (max: number) =>
  z.string('must be text').trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const tagsArg = z
  .array(
    z
      .string('must be text')
      .max(L.tagLength, `must be at most ${L.tagLength} characters`)
      .regex(TAG, 'must be one word (letters, digits, "_" or "-"), with or without "#"'),
    'must be a list of words',
  )
  .max(L.tagsPerCard, `must list at most ${L.tagsPerCard} tags`);

/** A card as an object (an import checks each card of a file against it before sending any). */
export const cardObject = z
  .object({
    id: z
      .string('must be text')
      .regex(CARD_ID, 'must be 1 to 80 letters, digits, ".", "_", ":" or "-", starting with a letter or digit')
      .optional(),
    text: text(L.cardText),
    title: text(L.title).optional(),
    tags: tagsArg.optional(),
    links: z
      .array(z.string('must be a card id'), 'must be a list of card ids')
      .max(L.linksPerCard, `must list at most ${L.linksPerCard} links`)
      .optional(),
    author: z.string('must be text').max(200, 'must be at most 200 characters').optional(),
  })
  .strict();

/** A card as a caller sends it: its text alone, or an object. */
export const cardArg = z.union([text(L.cardText), cardObject], {
  error: 'must be the card\'s text, or {"text", "title"?, "tags"?, "links"?, "id"?, "author"?}',
});
const cardList = z
  .array(cardArg, 'must be a list of cards: texts, or {"text": …} objects')
  .max(L.cardsPerCall, `must hold at most ${L.cardsPerCall} cards per call`);
const CARDS = `the cards, each its text ("#word" tags it) or {text, title?, tags?, links?, id?, author?}; at most ${L.cardsPerCall}`;
export const cardsArg = cardList.min(1, 'must hold at least one card').describe(CARDS);
/** Cards an append adds: none is allowed when it draws connections. */
export const addedCardsArg = cardList.describe(`${CARDS}; none when connections are given`);

const cardRef = z.union([z.number().int().min(0), z.string().regex(CARD_ID)], {
  error: "must be a card's place in this call's cards (0, 1, …) or a card id",
});
export const connectionArg = z
  .object({
    from: cardRef,
    to: cardRef,
    type: z
      .string('must be text')
      .regex(CONNECTION_TYPE, 'must be a lower-case word such as leads_to, answers or related')
      .default('related'),
  })
  .strict();
export const connectionsArg = z
  .array(connectionArg, 'must be a list of {"from", "to", "type"?}')
  .max(L.connectionsPerCall, `must hold at most ${L.connectionsPerCall} connections per call`)
  .describe(
    "typed connections {from, to, type?}: each end a card's place in this call's cards (0, 1, …) or a card id; type a lower-case word such as leads_to, answers or related (the default)",
  );

/**
 * The capture fields of a one-card write: what backs the card and how to check it. Kept as the
 * writer sent them and shown with the card; the hub never follows a reference or runs a check.
 */
export const evidenceArg = z
  .array(
    z
      .string('must be text: a link, a path, a commit or a card id')
      .trim()
      .min(1, 'must not be empty')
      .max(L.evidenceRef, `must be at most ${L.evidenceRef} characters`)
      .regex(/^[^\p{Cc}]+$/u, 'must be one line of text, without control characters'),
    'must be a list of references (links, paths, commits, card ids), each as text',
  )
  .min(1, 'must list at least one reference, or be left out')
  .max(L.evidence, `must list at most ${L.evidence} references`)
  .describe(
    `what backs the card: a list of references (links, file paths, commits, card ids), at most ${L.evidence}; kept as text, never followed`,
  );
export const verifyArg = text(L.verify).describe(
  `how to check the card still holds (a command or steps), at most ${L.verify} characters; kept as text, never run`,
);

export const boardRef = text(L.title).describe('a board id or title');
export const visibilityArg = z
  .enum(['private', 'shared', 'public'], 'must be private, shared or public')
  .describe('who may read the board: private (you alone, the default), shared (with sharedWith) or public');
export const sharedWithArg = z
  .array(z.string().regex(HANDLE, 'must be an agent handle'), 'must be a list of agent handles')
  .max(L.sharedWith, `must name at most ${L.sharedWith} agents`)
  .describe('the handles of the agents a shared board is shared with');

export type CardArg = z.output<typeof cardArg>;
export type ConnectionArg = z.output<typeof connectionsArg>[number];
