/**
 * Memory boards in synchronous statements, each write one transaction: this process is the only
 * one on the file, and a transaction runs whole before any other statement, so appends to a board
 * never interleave. Cards are indexed by FTS5 (`card_search`, kept by a trigger on `cards`).
 */
import { statementCache, type Db } from './database.js';
import {
  StoreConflict,
  titleKey,
  type BoardRecord,
  type BoardScope,
  type BoardStore,
  type BoardWrite,
  type CardRecord,
  type RecallQuery,
} from '../store.js';
import {
  boardFromRow,
  cardFromRow,
  cardToRow,
  connectionFromRow,
  type BoardRow,
  type CardRow,
  type ConnectionRow,
} from '../board-rows.js';
import { quotaStatements } from './quota-charges.js';

/** A board row (alias b) with its readers, in one query. */
const BOARD_SELECT =
  'b.*, (SELECT json_group_array(handle) FROM (SELECT handle FROM board_readers r WHERE r.board_id = b.id ORDER BY handle)) AS shared_with';

/** A scope as one condition on `boards` (alias b), with its parameters. */
function scopeCondition(scope: BoardScope): { sql: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = {};
  const branches = scope.anyOf.map((branch, i) => {
    const tests: string[] = [];
    if (branch.owner !== undefined) (tests.push(`b.owner = @o${i}`), (params[`o${i}`] = branch.owner));
    if (branch.visibility !== undefined) (tests.push(`b.visibility = @v${i}`), (params[`v${i}`] = branch.visibility));
    if (branch.sharedWith !== undefined) {
      tests.push(`EXISTS (SELECT 1 FROM board_readers r WHERE r.board_id = b.id AND r.handle = @r${i})`);
      params[`r${i}`] = branch.sharedWith;
    }
    return tests.length ? `(${tests.join(' AND ')})` : '1';
  });
  return { sql: branches.length ? `(${branches.join(' OR ')})` : '0', params };
}

/**
 * FTS5 terms: each word also as a prefix, each tag only in the tags column; quoted, so nothing in
 * them is syntax. Recall takes any term (OR); the agent directory every one (AND).
 */
export function matchExpression(query: Pick<RecallQuery, 'words' | 'tags'>, join: 'OR' | 'AND' = 'OR'): string {
  const quote = (term: string) => `"${term.replaceAll('"', '""')}"`;
  return [...query.words.map((w) => `${quote(w)}*`), ...query.tags.map((t) => `tags : ${quote(t)}`)].join(` ${join} `);
}

export function boardStatements(db: Db): BoardStore {
  const prepare = statementCache(db); // lists and recalls vary in their conditions
  const ownedBy = db.prepare('SELECT COUNT(*) FROM boards WHERE owner = ?').pluck();
  const getBoard = db.prepare(`SELECT ${BOARD_SELECT} FROM boards b WHERE b.id = ?`);
  const insertBoard = db.prepare(
    'INSERT INTO boards (id, title, title_key, owner, visibility, card_count, created_at, updated_at) VALUES (@id, @title, @titleKey, @owner, @visibility, 0, @createdAt, @createdAt)',
  );
  const insertReader = db.prepare('INSERT OR IGNORE INTO board_readers (board_id, handle) VALUES (?, ?)');
  const cardExists = db.prepare('SELECT 1 FROM cards WHERE board_id = ? AND id = ?').pluck();
  const insertCard = db.prepare(
    `INSERT INTO cards (board_id, id, position, text, title, tags, links, written_by, claimed_by, kind, evidence, verify, created_at)
     VALUES (@board_id, @id, @position, @text, @title, @tags, @links, @written_by, @claimed_by, @kind, @evidence, @verify, @created_at)`,
  );
  const insertConnection = db.prepare(
    'INSERT OR IGNORE INTO card_connections (board_id, from_id, to_id, type, written_by, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const touchBoard = db.prepare('UPDATE boards SET card_count = ?, updated_at = MAX(updated_at, ?) WHERE id = ?');
  const cardsOf = db.prepare('SELECT * FROM cards WHERE board_id = ? ORDER BY position');
  const cardsAmong = db.prepare(
    'SELECT * FROM cards WHERE board_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY position',
  );
  const connectionsOf = db.prepare('SELECT * FROM card_connections WHERE board_id = ? ORDER BY rowid');

  const read = (id: string): BoardRecord | undefined => {
    const row = getBoard.get(id) as BoardRow | undefined;
    return row && boardFromRow(row);
  };

  const create = (w: BoardWrite & { create: NonNullable<BoardWrite['create']> }): void => {
    const existing = read(w.create.id);
    if (existing) {
      if (existing.owner !== w.create.owner) throw new StoreConflict('board-id', `board ${w.create.id} is another's`);
      return; // made by this write before: a retry
    }
    if (w.maxBoards !== undefined && (ownedBy.get(w.create.owner) as number) >= w.maxBoards) {
      throw new StoreConflict('boards-limit', `${w.create.owner} has ${w.maxBoards} boards`);
    }
    const { id, title, owner, visibility, createdAt } = w.create;
    insertBoard.run({ id, title, titleKey: titleKey(title), owner, visibility, createdAt });
    for (const handle of w.create.sharedWith) insertReader.run(w.create.id, handle);
  };

  const quotas = quotaStatements(db);
  const write = db.transaction((w: BoardWrite): BoardRecord => {
    quotas.charge(w.quotas); // refused before anything is written
    if (w.create) create(w as BoardWrite & { create: NonNullable<BoardWrite['create']> });
    const board = read(w.boardId);
    if (!board) throw new StoreConflict('board-missing', `no board ${w.boardId}`);
    const fresh = w.cards.filter((c) => !cardExists.get(w.boardId, c.id));
    if (board.cardCount + fresh.length > w.maxCards)
      throw new StoreConflict('board-full', `board ${w.boardId} holds ${board.cardCount} cards of ${w.maxCards}`);
    fresh.forEach((card, i) => insertCard.run(cardToRow(card, w.boardId, board.cardCount + i)));
    for (const c of w.connections) insertConnection.run(w.boardId, c.from, c.to, c.type, c.writtenBy, c.createdAt);
    touchBoard.run(board.cardCount + fresh.length, w.at, w.boardId);
    return read(w.boardId)!;
  });

  return {
    writeBoard: async (w: BoardWrite) => write.immediate(w),
    getBoard: async (id: string) => read(id),
    listBoards: async (
      scope: BoardScope,
      query: { limit: number; title?: string; after?: { updatedAt: number; id: string } },
    ) => {
      const where = scopeCondition(scope);
      const params: Record<string, unknown> = { ...where.params, lim: query.limit + 1 };
      let sql = `SELECT ${BOARD_SELECT} FROM boards b WHERE ${where.sql}`;
      if (query.title !== undefined) ((sql += ' AND b.title_key = @title'), (params['title'] = titleKey(query.title)));
      if (query.after)
        ((sql += ' AND (b.updated_at, b.id) < (@au, @ai)'),
          Object.assign(params, { au: query.after.updatedAt, ai: query.after.id }));
      const rows = prepare(`${sql} ORDER BY b.updated_at DESC, b.id DESC LIMIT +@lim`).all(params) as BoardRow[];
      const boards = rows.slice(0, query.limit).map(boardFromRow);
      return { boards, hasMore: rows.length > query.limit };
    },
    boardContents: async (id: string) => ({
      cards: (cardsOf.all(id) as CardRow[]).map(cardFromRow),
      connections: (connectionsOf.all(id) as ConnectionRow[]).map(connectionFromRow),
    }),
    boardCards: async (id: string, ids: readonly string[]) =>
      (cardsAmong.all(id, JSON.stringify(ids)) as CardRow[]).map(cardFromRow),
    recall: async (scope: BoardScope, query: RecallQuery) => {
      const match = matchExpression(query);
      if (!match) return [];
      const where = scopeCondition(scope);
      const params: Record<string, unknown> = { ...where.params, q: match, lim: query.limit };
      // A skill card (a how-to) comes first, then a card carrying one of the query's tags; then the index's rank (bm25: lower is better).
      query.tags.forEach((t, i) => (params[`t${i}`] = t));
      const tagged = query.tags.length
        ? `EXISTS (SELECT 1 FROM json_each(c.tags) WHERE value IN (${query.tags.map((_, i) => `@t${i}`).join(', ')}))`
        : '0';
      let sql = `SELECT c.*, b.title AS board_title, bm25(card_search, 1.0, 2.0, 4.0) AS rank, ${tagged} AS tagged
        FROM card_search JOIN cards c ON c.rowid = card_search.rowid JOIN boards b ON b.id = c.board_id
        WHERE card_search MATCH @q AND ${where.sql}`;
      if (query.boardId !== undefined) ((sql += ' AND c.board_id = @board'), (params['board'] = query.boardId));
      const rows = prepare(
        `${sql} ORDER BY c.kind IS 'skill' DESC, tagged DESC, rank, c.created_at DESC LIMIT +@lim`,
      ).all(params) as (CardRow & { board_title: string; rank: number })[];
      return rows.map((r) => ({ card: cardFromRow(r) as CardRecord, boardTitle: r.board_title, score: -r.rank }));
    },
    countBoards: async (owner: string) => ownedBy.get(owner) as number,
  };
}
