/**
 * Memory boards. A write is one transaction that locks its board's row first (FOR UPDATE), so
 * appends to one board queue on it whichever process makes them, and each reads the count the last
 * one committed: no card is lost and the limit holds. A new board's owner is locked too (an advisory
 * lock on the handle) while its boards are counted. Cards are indexed by a generated `tsvector`
 * (tags weigh most, then the title, then the text) under a GIN index.
 */
import type pg from 'pg';
import { Statement, type Db } from './database.js';
import { chargeQuotas } from './receipts.js';
import {
  StoreConflict,
  titleKey,
  type BoardRecord,
  type BoardScope,
  type BoardStore,
  type BoardWrite,
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

/** A board row (alias b) with its readers, in one query. */
const BOARD_COLUMNS = `b.id, b.title, b.owner, b.visibility, b.card_count, b.created_at, b.updated_at,
  (SELECT coalesce(json_agg(r.handle ORDER BY r.handle), '[]')::text FROM board_readers r WHERE r.board_id = b.id) AS shared_with`;
const CARD_COLUMNS =
  'c.board_id, c.id, c.position, c.text, c.title, c.tags, c.links, c.written_by, c.claimed_by, c.kind, c.evidence, c.verify, c.created_at';

/** A scope as one condition on `boards` (alias b); its values are appended to `values`. */
function scopeCondition(scope: BoardScope, values: unknown[]): string {
  const param = (v: unknown) => `$${values.push(v)}`;
  const branches = scope.anyOf.map((branch) => {
    const tests: string[] = [];
    if (branch.owner !== undefined) tests.push(`b.owner = ${param(branch.owner)}`);
    if (branch.visibility !== undefined) tests.push(`b.visibility = ${param(branch.visibility)}`);
    if (branch.sharedWith !== undefined)
      tests.push(
        `EXISTS (SELECT 1 FROM board_readers r WHERE r.board_id = b.id AND r.handle = ${param(branch.sharedWith)})`,
      );
    return tests.length ? `(${tests.join(' AND ')})` : 'TRUE';
  });
  return branches.length ? `(${branches.join(' OR ')})` : 'FALSE';
}

/**
 * A tsquery: each word also as a prefix, each tag only among the tags (weight A); quoted, so
 * nothing in them is syntax. Recall takes any term (|); the agent directory every one (&).
 */
export function tsQuery(query: Pick<RecallQuery, 'words' | 'tags'>, join: '|' | '&' = '|'): string {
  const quote = (term: string) => `'${term.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`;
  return [...query.words.map((w) => `${quote(w)}:*`), ...query.tags.map((t) => `${quote(t)}:A`)].join(` ${join} `);
}

/** What reads go through: the pool, or the connection of a transaction. */
type Querier = Pick<Db, 'query'>;
const onClient = (client: pg.PoolClient): Querier => ({
  query: async <R>(text: string, values?: readonly unknown[]) => {
    const result = await client.query(text, values as unknown[]);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  },
});

async function readBoard(q: Querier, id: string, lock = false): Promise<BoardRecord | undefined> {
  const { rows } = await q.query<BoardRow>(
    `SELECT ${BOARD_COLUMNS} FROM boards b WHERE b.id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] && boardFromRow(rows[0]);
}

async function createBoard(
  client: pg.PoolClient,
  w: BoardWrite & { create: NonNullable<BoardWrite['create']> },
): Promise<void> {
  const { id, title, owner, visibility, sharedWith, createdAt } = w.create;
  await client.query("SELECT pg_advisory_xact_lock(hashtext('muster-boards'), hashtext($1))", [owner]); // two keys: apart from single-key locks
  const existing = await readBoard(onClient(client), id);
  if (existing) {
    if (existing.owner !== owner) throw new StoreConflict('board-id', `board ${id} is another's`);
    return; // made by this write before: a retry
  }
  if (w.maxBoards !== undefined) {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM boards WHERE owner = $1', [
      owner,
    ]);
    if (rows[0]!.n >= w.maxBoards) throw new StoreConflict('boards-limit', `${owner} has ${w.maxBoards} boards`);
  }
  await client.query(
    'INSERT INTO boards (id, title, title_key, owner, visibility, card_count, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 0, $6, $6)',
    [id, title, titleKey(title), owner, visibility, createdAt],
  );
  if (sharedWith.length)
    await client.query(
      'INSERT INTO board_readers (board_id, handle) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
      [id, sharedWith],
    );
}

/** Counts the write's charges in its transaction; one over its limit raises MU429 (QuotaExceeded), rolling the write back. */
async function charge(client: pg.PoolClient, charges: BoardWrite['quotas']): Promise<void> {
  const s = new Statement();
  const held = chargeQuotas(s, charges);
  if (held) await client.query(s.text(`SELECT (SELECT count(*) FROM ${held})::int AS over`), s.values);
}

async function appendTo(client: pg.PoolClient, w: BoardWrite): Promise<BoardRecord> {
  const board = await readBoard(onClient(client), w.boardId, true);
  if (!board) throw new StoreConflict('board-missing', `no board ${w.boardId}`);
  const { rows: present } = await client.query<{ id: string }>(
    'SELECT id FROM cards WHERE board_id = $1 AND id = ANY($2::text[])',
    [w.boardId, w.cards.map((c) => c.id)],
  );
  const known = new Set(present.map((r) => r.id));
  const fresh = w.cards.filter((c) => !known.has(c.id));
  if (board.cardCount + fresh.length > w.maxCards)
    throw new StoreConflict('board-full', `board ${w.boardId} holds ${board.cardCount} cards of ${w.maxCards}`);
  if (fresh.length) {
    const rows = fresh.map((c, i) => cardToRow(c, w.boardId, board.cardCount + i));
    const column = <K extends keyof CardRow>(k: K) => rows.map((r) => r[k]);
    await client.query(
      `INSERT INTO cards (board_id, id, position, text, title, tags, links, written_by, claimed_by, kind, evidence, verify, created_at)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int8[])`,
      [
        w.boardId,
        column('id'),
        column('position'),
        column('text'),
        column('title'),
        column('tags'),
        column('links'),
        column('written_by'),
        column('claimed_by'),
        column('kind'),
        column('evidence'),
        column('verify'),
        column('created_at'),
      ],
    );
  }
  if (w.connections.length) {
    const c = w.connections;
    await client.query(
      `INSERT INTO card_connections (board_id, from_id, to_id, type, written_by, created_at)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int8[]) ON CONFLICT DO NOTHING`,
      [
        w.boardId,
        c.map((x) => x.from),
        c.map((x) => x.to),
        c.map((x) => x.type),
        c.map((x) => x.writtenBy),
        c.map((x) => x.createdAt),
      ],
    );
  }
  // A node's clock may run behind another's: a board's updated_at never goes back.
  await client.query('UPDATE boards SET card_count = $2, updated_at = GREATEST(updated_at, $3) WHERE id = $1', [
    w.boardId,
    board.cardCount + fresh.length,
    w.at,
  ]);
  return { ...board, cardCount: board.cardCount + fresh.length, updatedAt: Math.max(board.updatedAt, w.at) };
}

export function boardStatements(db: Db): BoardStore {
  return {
    writeBoard: (w: BoardWrite) =>
      db.transaction(async (client) => {
        if (w.create) await createBoard(client, w as BoardWrite & { create: NonNullable<BoardWrite['create']> });
        const board = await appendTo(client, w);
        await charge(client, w.quotas); // last: the agent's counter rows are its writes' hottest lock
        return board;
      }),

    getBoard: (id: string) => readBoard(db, id),

    listBoards: async (
      scope: BoardScope,
      query: { limit: number; title?: string; after?: { updatedAt: number; id: string } },
    ) => {
      const values: unknown[] = [];
      let sql = `SELECT ${BOARD_COLUMNS} FROM boards b WHERE ${scopeCondition(scope, values)}`;
      if (query.title !== undefined) sql += ` AND b.title_key = $${values.push(titleKey(query.title))}`;
      if (query.after)
        sql += ` AND (b.updated_at, b.id) < ($${values.push(query.after.updatedAt)}::int8, $${values.push(query.after.id)}::text)`;
      const { rows } = await db.query<BoardRow>(
        `${sql} ORDER BY b.updated_at DESC, b.id DESC LIMIT $${values.push(query.limit + 1)}`,
        values,
      );
      const boards = rows.slice(0, query.limit).map(boardFromRow);
      return { boards, hasMore: rows.length > query.limit };
    },

    boardContents: async (id: string) => {
      const [cards, connections] = await Promise.all([
        db.query<CardRow>(`SELECT ${CARD_COLUMNS} FROM cards c WHERE c.board_id = $1 ORDER BY c.position`, [id]),
        db.query<ConnectionRow>(
          'SELECT board_id, from_id, to_id, type, written_by, created_at FROM card_connections WHERE board_id = $1 ORDER BY seq',
          [id],
        ),
      ]);
      return { cards: cards.rows.map(cardFromRow), connections: connections.rows.map(connectionFromRow) };
    },

    boardCards: async (id: string, ids: readonly string[]) =>
      (
        await db.query<CardRow>(
          `SELECT ${CARD_COLUMNS} FROM cards c WHERE c.board_id = $1 AND c.id = ANY($2::text[]) ORDER BY c.position`,
          [id, ids],
        )
      ).rows.map(cardFromRow),

    recall: async (scope: BoardScope, query: RecallQuery) => {
      const text = tsQuery(query);
      if (!text) return [];
      const values: unknown[] = [text];
      // A skill card (a how-to) comes first, then a card carrying one of the query's tags; then the index's rank.
      const tagged = `EXISTS (SELECT 1 FROM jsonb_array_elements_text(c.tags::jsonb) t WHERE t = ANY($${values.push(query.tags)}::text[]))`;
      let sql = `SELECT ${CARD_COLUMNS}, b.title AS board_title, ts_rank(c.search, q) AS score, ${tagged} AS tagged
        FROM cards c JOIN boards b ON b.id = c.board_id, to_tsquery('simple', $1) q
        WHERE c.search @@ q AND ${scopeCondition(scope, values)}`;
      if (query.boardId !== undefined) sql += ` AND c.board_id = $${values.push(query.boardId)}`;
      const { rows } = await db.query<CardRow & { board_title: string; score: number }>(
        `${sql} ORDER BY c.kind IS NOT DISTINCT FROM 'skill' DESC, tagged DESC, score DESC, c.created_at DESC LIMIT $${values.push(query.limit)}`,
        values,
      );
      return rows.map((r) => ({ card: cardFromRow(r), boardTitle: r.board_title, score: r.score }));
    },

    countBoards: async (owner: string) =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM boards WHERE owner = $1', [owner])).rows[0]!.n,
  };
}
