/**
 * Boards read over REST, with or without a token: a page of the boards the caller may read, and
 * one board as its board file. What a caller may read is the view's to say (boardScope).
 */
import { HubError } from '../../../errors/hub-error.js';
import type { Caller } from '../../../identity/caller.js';
import type { BoardRecord, BoardStore } from '../../../store/store.js';
import { decodePageToken, encodePageToken } from '../../page-token.js';
import { boardScope, mayReadBoard } from '../../view.js';
import { boardFile, type BoardFile } from './board-file.js';

/** What a board page token is bound to: the list has no filters. */
const BOARD_PAGES = 'boards';

const iso = (ms: number) => new Date(ms).toISOString();

export const boardSummary = (b: BoardRecord) => ({
  id: b.id,
  title: b.title,
  owner: b.owner,
  visibility: b.visibility,
  ...(b.visibility === 'shared' ? { sharedWith: b.sharedWith } : {}),
  cards: b.cardCount,
  createdAt: iso(b.createdAt),
  updatedAt: iso(b.updatedAt),
});

export class BoardReads {
  constructor(private readonly store: BoardStore) {}

  async page(caller: Caller, query: { cursor?: string; limit?: number }) {
    const after = decodePageToken(query.cursor, BOARD_PAGES, 'cursor');
    const page = await this.store.listBoards(boardScope(caller), { limit: query.limit ?? 20, ...(after ? { after } : {}) });
    const last = page.boards.at(-1);
    return { data: page.boards.map(boardSummary), hasMore: page.hasMore, ...(page.hasMore && last ? { cursor: encodePageToken(last, BOARD_PAGES) } : {}) };
  }

  /** The board as its file; BOARD_NOT_FOUND alike for a board that is not there and one the caller may not read. */
  async file(caller: Caller, id: string): Promise<BoardFile> {
    const board = await this.store.getBoard(id);
    if (!board || !mayReadBoard(caller, board)) {
      throw new HubError('BOARD_NOT_FOUND', `No board '${id}' that you may read`, { hint: 'List the boards you may read with GET /api/boards' });
    }
    const { cards, connections } = await this.store.boardContents(id);
    return boardFile(board, cards, connections);
  }
}
