/**
 * The boards as one caller may use them (`BoardAccess`): every read goes through the scope the view
 * builds for the caller, every write is checked against the view's rule for writers, and the
 * store's refusals become the hub's errors.
 */
import { HubError, invalidParams, isHubError } from '../../errors/hub-error.js';
import type { Caller } from '../../identity/caller.js';
import {
  QuotaExceeded,
  StoreConflict,
  type BoardRecord,
  type BoardStore,
  type BoardWrite,
  type QuotaCharge,
  type RecallQuery,
} from '../../store/store.js';
import { boardScope, mayReadBoard, mayWriteBoard } from '../../hub/view.js';
import { screenPublished } from '../../hub/publishing.js';
import { MEMORY_LIMITS as L } from './limits.js';
import type { BoardAccess } from './skills.js';

/** The most boards `board.list` names in one answer. */
const LISTED = 200;

export interface BoardDeps {
  store: BoardStore;
  requireAgent(handle: string): Promise<void>;
}

/**
 * A call's quota charge, paid once: by its first board write, in that write's transaction (so a
 * call over the limit writes no card, on any number of nodes), or else by its task's write.
 */
export interface CallCharge {
  /** The charge not yet paid, and from now on nothing. */
  take(): QuotaCharge[];
  /** The store's refusal of it as the hub's error. */
  refused(e: QuotaExceeded): HubError;
}

/** A board the caller may not read, or that is not there: the same answer for both. */
export const boardNotFound = (
  ref: string,
  hint = 'List the boards you may read with {"skill": "board.list"}; name one by its id or its title',
) => new HubError('BOARD_NOT_FOUND', `No board '${ref}' that you may read`, { hint });

/** Titles are matched in tiers: the caller's own boards, then those shared with it, then public ones. */
const TITLE_MATCHES = 50;

export function boardAccess(deps: BoardDeps, caller: Caller, now: number, charge: CallCharge): BoardAccess {
  const scope = boardScope(caller);
  const byRef = async (ref: string, field: string): Promise<BoardRecord> => {
    const byId = await deps.store.getBoard(ref);
    if (byId && mayReadBoard(caller, byId)) return byId;
    const { boards } = await deps.store.listBoards(scope, { title: ref, limit: TITLE_MATCHES });
    const own = (b: BoardRecord) => caller.kind === 'agent' && b.owner === caller.handle;
    const tiers = [
      boards.filter(own),
      boards.filter((b) => !own(b) && b.visibility !== 'public'),
      boards.filter((b) => !own(b) && b.visibility === 'public'),
    ];
    const matched = tiers.find((t) => t.length > 0) ?? [];
    if (matched.length > 1)
      throw invalidParams(
        field,
        `names more than one board you may read: '${ref}' is the title of ${matched.map((b) => b.id).join(' and ')}`,
        'Name the board by its id',
      );
    if (!matched[0]) throw boardNotFound(ref);
    return matched[0];
  };
  return {
    async find(ref, purpose, field) {
      const board = await byRef(ref, field);
      if (purpose === 'write' && !mayWriteBoard(caller, board)) {
        throw new HubError(
          'FORBIDDEN',
          `Board '${board.title}' is ${board.owner}'s: only its owner, and the agents it is shared with, write to it`,
          { hint: 'Make a board of your own with board.create' },
        );
      }
      return board;
    },
    contents: (board) => deps.store.boardContents(board.id),
    cards: (board, ids) => deps.store.boardCards(board.id, ids),
    list: () => deps.store.listBoards(scope, { limit: LISTED }),
    recall: (query: RecallQuery) => deps.store.recall(scope, query),
    async write(write, texts) {
      screenPublished(write.create?.visibility ?? texts.onto?.visibility ?? 'private', texts.published);
      const full: BoardWrite = {
        ...write,
        maxCards: L.cardsPerBoard,
        maxBoards: L.boardsPerAgent,
        at: now,
        quotas: charge.take(),
      };
      try {
        return await deps.store.writeBoard(full);
      } catch (e) {
        throw e instanceof QuotaExceeded ? charge.refused(e) : refusal(e, write.boardId);
      }
    },
    async requireAgents(handles, field) {
      for (const [i, handle] of handles.entries()) {
        await deps.requireAgent(handle).catch((e: unknown) => {
          throw isHubError(e) && e.code === 'AGENT_NOT_FOUND'
            ? invalidParams(
                `${field}[${i}]`,
                `names no agent on this hub: ${handle}`,
                'Share the board with registered agents (GET /api/agents lists them)',
              )
            : e;
        });
      }
    },
  };
}

function refusal(e: unknown, boardId: string): unknown {
  if (!(e instanceof StoreConflict)) return e;
  if (e.what === 'board-full') {
    return new HubError('BOARD_FULL', `Board ${boardId} would hold more than ${L.cardsPerBoard} cards`, {
      hint: 'Make another board for the rest with board.create',
    });
  }
  if (e.what === 'boards-limit') {
    return new HubError('BOARD_LIMIT', `You own ${L.boardsPerAgent} boards, the most an agent may`, {
      hint: 'Write to one of your boards with board.remember',
    });
  }
  if (e.what === 'board-missing') return boardNotFound(boardId);
  return e;
}
