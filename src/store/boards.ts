/**
 * Memory boards: titled sets of cards and typed connections between them, which agents write and
 * recall through the memory base's skills. A store promises: an append never loses a card, with
 * any number of writers on any number of processes (appends to one board queue on its row); a
 * write is whole or not at all; a write repeated with the same ids (a retried request) adds
 * nothing; a board never holds more cards than the write allows; a write's quota charges are
 * counted in its transaction (over a limit, nothing of it stands); recall reads the store's own
 * full-text index and only the boards the scope lets it read.
 */
import type { QuotaCharge } from './receipts.js';

export type BoardVisibility = 'private' | 'shared' | 'public';

export interface BoardRecord {
  id: string;
  title: string;
  /** The agent that made the board. */
  owner: string;
  visibility: BoardVisibility;
  /** Agents that may read a `shared` board besides its owner. */
  sharedWith: string[];
  cardCount: number;
  createdAt: number;
  updatedAt: number;
}

export interface CardRecord {
  id: string;
  boardId: string;
  /** The card's place on its board: 0, 1, 2… in the order cards were written. */
  position: number;
  text: string;
  title?: string;
  tags: string[];
  /** Ids of other cards the card points at. */
  links: string[];
  /** Who wrote it, as the hub knows them: door and handle (`a2a:alice`). */
  writtenBy: string;
  /** The author name the caller claimed, if any (a claim, not an identity). */
  claimedBy?: string;
  /** `skill`: a how-to the writer learned (board.learn), which recall puts before plain cards; none for a plain card. */
  kind?: 'skill';
  /** References the writer gave for what the card says (links, paths, commits): kept as text, never followed. */
  evidence?: string[];
  /** How to check the card still holds, as the writer wrote it: kept as text, never run. */
  verify?: string;
  createdAt: number;
}

export interface ConnectionRecord {
  boardId: string;
  from: string;
  to: string;
  /** What the connection says: `leads_to`, `answers`, `related`… */
  type: string;
  writtenBy: string;
  createdAt: number;
}

/** A card a write adds: its id is the writer's, so a repeated write adds it once. */
export type NewCard = Omit<CardRecord, 'boardId' | 'position'>;
export type NewConnection = Omit<ConnectionRecord, 'boardId'>;

/** One board write: a new board (with its first cards), or cards and connections added to one. */
export interface BoardWrite {
  /** Set to create the board; its id must be new, or the board this write already made (a retry). */
  create?: Omit<BoardRecord, 'cardCount' | 'updatedAt'>;
  boardId: string;
  cards: readonly NewCard[];
  connections: readonly NewConnection[];
  /** The most cards the board may hold after the write (StoreConflict 'board-full' otherwise). */
  maxCards: number;
  /** With `create`: the most boards its owner may have after it (StoreConflict 'boards-limit' otherwise). */
  maxBoards?: number;
  at: number;
  /** Counted in the write's own transaction: one over its limit refuses the write whole (QuotaExceeded), counter included. */
  quotas?: readonly QuotaCharge[];
}

/** How titles are compared (case folded the same way on every dialect): a board's title key. */
export const titleKey = (title: string): string => title.normalize('NFC').toLowerCase();

/** One test on a board: all it names hold. */
export interface BoardBranch {
  owner?: string;
  visibility?: BoardVisibility;
  /** Shared with this agent. */
  sharedWith?: string;
}

/** Which boards a read may see: those any branch holds for (built only by the hub's view). */
export interface BoardScope {
  readonly anyOf: readonly BoardBranch[];
}

export interface RecallQuery {
  /** Words to look for in cards' text and titles (each also as a prefix). */
  words: readonly string[];
  /** Tags to look for (without `#`); a card carrying one ranks above every card that carries none. */
  tags: readonly string[];
  /** Only this board. */
  boardId?: string;
  limit: number;
}

export interface RecalledCard {
  card: CardRecord;
  boardTitle: string;
  /** Higher is better; only the order means anything. */
  score: number;
}

export interface BoardStore {
  /**
   * The board after the write. Refusals (StoreConflict), with nothing written: 'board-id' when a new
   * board's id is another board's, 'board-missing' when cards go to no board, 'board-full',
   * 'boards-limit'. Cards and connections already on the board (same ids) are kept as they are.
   */
  writeBoard(write: BoardWrite): Promise<BoardRecord>;
  getBoard(id: string): Promise<BoardRecord | undefined>;
  /** Boards in the scope, newest first, `limit` at most, after the board `after` (its updatedAt and id); `title` is matched by titleKey. */
  listBoards(
    scope: BoardScope,
    query: { limit: number; title?: string; after?: { updatedAt: number; id: string } },
  ): Promise<{ boards: BoardRecord[]; hasMore: boolean }>;
  /** A board's cards in order, and its connections in the order they were made. */
  boardContents(id: string): Promise<{ cards: CardRecord[]; connections: ConnectionRecord[] }>;
  /** The cards of a board among `ids` (those there, in order): what a write needs to check, without reading the board whole. */
  boardCards(id: string, ids: readonly string[]): Promise<CardRecord[]>;
  /** Cards in the scope's boards that match, best first. */
  recall(scope: BoardScope, query: RecallQuery): Promise<RecalledCard[]>;
  /** How many boards the agent owns. */
  countBoards(owner: string): Promise<number>;
}
