/**
 * The boards as one caller may use them (`BoardAccess`): every read goes through the scope the view
 * builds for the caller, every write is checked against the view's rule for writers, and the
 * store's refusals become the hub's errors.
 */
import { HubError, invalidParams } from '../../../errors/hub-error.js';
import type { Caller } from '../../../identity/caller.js';
import { StoreConflict, type BoardRecord, type BoardStore, type BoardWrite, type RecallQuery } from '../../../store/store.js';
import { boardScope, mayReadBoard, mayWriteBoard } from '../../view.js';
import { MEMORY_LIMITS as L } from './limits.js';
import type { BoardAccess } from './skills.js';

/** The most boards `board.list` names in one answer. */
const LISTED = 200;

export interface BoardDeps {
  store: BoardStore;
  requireAgent(handle: string): Promise<void>;
}

const notFound = (ref: string) =>
  new HubError('BOARD_NOT_FOUND', `No board '${ref}' that you may read`, { hint: 'List the boards you may read with {"skill": "board.list"}; name one by its id or its title' });

export function boardAccess(deps: BoardDeps, caller: Caller, now: number): BoardAccess {
  const scope = boardScope(caller);
  const byRef = async (ref: string, field: string): Promise<BoardRecord> => {
    const byId = await deps.store.getBoard(ref);
    if (byId && mayReadBoard(caller, byId)) return byId;
    const { boards } = await deps.store.listBoards(scope, { title: ref, limit: 2 });
    if (boards.length > 1) throw invalidParams(field, `names more than one board you may read: '${ref}' is the title of ${boards.map((b) => b.id).join(' and ')}`, 'Name the board by its id');
    if (!boards[0]) throw notFound(ref);
    return boards[0];
  };
  return {
    async find(ref, purpose, field) {
      const board = await byRef(ref, field);
      if (purpose === 'write' && !mayWriteBoard(caller, board)) {
        throw new HubError('FORBIDDEN', `Board '${board.title}' is ${board.owner}'s: only its owner, and the agents it is shared with, write to it`, { hint: 'Make a board of your own with board.create' });
      }
      return board;
    },
    contents: (board) => deps.store.boardContents(board.id),
    list: () => deps.store.listBoards(scope, { limit: LISTED }),
    recall: (query: RecallQuery) => deps.store.recall(scope, query),
    async write(write) {
      const full: BoardWrite = { ...write, maxCards: L.cardsPerBoard, maxBoards: L.boardsPerAgent, at: now };
      try {
        return await deps.store.writeBoard(full);
      } catch (e) {
        throw refusal(e, write.boardId);
      }
    },
    async requireAgents(handles) {
      for (const handle of handles) await deps.requireAgent(handle);
    },
  };
}

function refusal(e: unknown, boardId: string): unknown {
  if (!(e instanceof StoreConflict)) return e;
  if (e.what === 'board-full') {
    return new HubError('BOARD_FULL', `Board ${boardId} would hold more than ${L.cardsPerBoard} cards`, { hint: 'Make another board for the rest with board.create' });
  }
  if (e.what === 'boards-limit') {
    return new HubError('BOARD_LIMIT', `You own ${L.boardsPerAgent} boards, the most an agent may`, { hint: 'Write to one of your boards with board.remember' });
  }
  if (e.what === 'board-missing') return notFound(boardId);
  return e;
}
