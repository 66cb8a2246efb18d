/**
 * What a board skill answers: its outcome (completed, or a question with the call left pending),
 * and how cards read in it, as data for programs and as a line for people.
 */
import type { JsonObject } from '../../a2a/types.js';
import type { BoardRecord, CardRecord, ConnectionRecord } from '../../store/store.js';
import type { Proposal } from './insights.js';

export interface BoardContents {
  cards: CardRecord[];
  connections: ConnectionRecord[];
}

/** A call waiting for input: its skill, the args it has so far, and a proposal to confirm. */
export interface Pending {
  skill: string;
  args: JsonObject;
  proposal?: Proposal[];
  /** Args the call asks for again, rather than refuses, when they are wrong (the call's `askOnError`). */
  askOnError?: string[];
  /** Args it was refused and asks for again: the follow-up must bring them. */
  asked?: string[];
}

export interface Outcome {
  state: 'TASK_STATE_COMPLETED' | 'TASK_STATE_INPUT_REQUIRED';
  /** For people: the status message and the result's text part. */
  text: string;
  /** For programs: the result's data part. */
  data: JsonObject;
  /** The board to answer as a file part (create, read, remember). */
  board?: BoardRecord & BoardContents;
  pending?: Pending;
}

export const done = (text: string, data: JsonObject, board?: Outcome['board']): Outcome => ({
  state: 'TASK_STATE_COMPLETED',
  text,
  data,
  ...(board ? { board } : {}),
});
/** `n` of a thing, in words: 1 card, 2 cards. */
const counted = (n: number, thing: string) => `${n} ${thing}${n === 1 ? '' : 's'}`;
export const cardsWord = (n: number) => counted(n, 'card');
export const connectionsWord = (n: number) => counted(n, 'connection');
export const cardData = (c: CardRecord) => ({
  id: c.id,
  ...(c.kind ? { kind: c.kind } : {}),
  text: c.text,
  ...(c.title ? { title: c.title } : {}),
  tags: c.tags,
  ...(c.evidence ? { evidence: c.evidence } : {}),
  ...(c.verify ? { verify: c.verify } : {}),
  writtenBy: c.writtenBy,
  ...(c.claimedBy ? { claimedBy: c.claimedBy } : {}),
});
/** A card in a line of text: a skill marked as one, its title, text and tags, then what backs it and how to check it. */
export const cardLine = (c: CardRecord) =>
  [
    `${c.kind === 'skill' ? '[skill] ' : ''}${c.title ? `**${c.title}** ` : ''}${c.text}`,
    c.tags.length ? ` (${c.tags.map((t) => `#${t}`).join(' ')})` : '',
    c.evidence ? ` evidence: ${c.evidence.join(', ')}` : '',
    c.verify ? ` verify: ${c.verify}` : '',
  ].join('');
