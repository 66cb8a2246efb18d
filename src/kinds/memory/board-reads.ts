/**
 * Boards read over REST, with or without a token: a page of the boards the caller may read, and
 * one board as its board file. What a caller may read is the view's to say (boardScope).
 */
import { z } from 'zod';
import type { Caller } from '../../identity/caller.js';
import type { RestRead } from '../../hub/kind-module.js';
import { pageFields } from '../../hub/page-query.js';
import type { BoardStore } from '../../store/store.js';
import { decodePageToken, encodePageToken } from '../../paging/page-token.js';
import { boardScope, mayReadBoard } from '../../hub/view.js';
import { boardNotFound } from './board-access.js';
import { BOARD_MEDIA_TYPE, type BoardFile } from './board-file.js';
import { boardFile, boardSummary } from './board-view.js';

/** What a board page token is bound to: the list has no filters. */
const BOARD_PAGES = 'boards';

export class BoardReads {
  constructor(private readonly store: BoardStore) {}

  async page(caller: Caller, query: { cursor?: string; limit?: number }) {
    const after = decodePageToken(query.cursor, BOARD_PAGES, 'cursor');
    const page = await this.store.listBoards(boardScope(caller), {
      limit: query.limit ?? 20,
      ...(after ? { after } : {}),
    });
    const last = page.boards.at(-1);
    return {
      data: page.boards.map(boardSummary),
      hasMore: page.hasMore,
      ...(page.hasMore && last ? { cursor: encodePageToken(last, BOARD_PAGES) } : {}),
    };
  }

  /** The board as its file; BOARD_NOT_FOUND alike for a board that is not there and one the caller may not read. */
  async file(caller: Caller, id: string): Promise<BoardFile> {
    const board = await this.store.getBoard(id);
    if (!board || !mayReadBoard(caller, board))
      throw boardNotFound(id, 'List the boards you may read with GET /api/boards');
    const { cards, connections } = await this.store.boardContents(id);
    return boardFile(board, cards, connections);
  }
}

const listQuery = z.object(pageFields).strict();

/** `GET /api/boards` (a page of the boards the caller may read) and `GET /api/boards/{id}` (one, as its board file); public ones need no token. */
export function boardReads(reads: BoardReads): RestRead[] {
  const list: RestRead<z.infer<typeof listQuery>> = {
    path: '/api/boards',
    query: listQuery,
    answer: async ({ caller, query }) => reads.page(await caller(), query),
  };
  const file: RestRead = {
    path: '/api/boards/:id',
    mediaType: BOARD_MEDIA_TYPE,
    answer: async ({ caller, params }) => reads.file(await caller(), params['id']!),
  };
  return [list, file];
}
