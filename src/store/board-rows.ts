/** Board, card and connection rows as both dialects return them (the same columns), turned into records. */
import type { BoardRecord, BoardVisibility, CardRecord, ConnectionRecord, NewCard } from './boards.js';

export interface BoardRow {
  id: string;
  title: string;
  owner: string;
  visibility: BoardVisibility;
  card_count: number;
  created_at: number;
  updated_at: number;
  /** Its readers' handles in order, a JSON array aggregated in the same query as the row. */
  shared_with: string;
}

export interface CardRow {
  board_id: string;
  id: string;
  position: number;
  text: string;
  title: string | null;
  /** JSON arrays, in both dialects: the full-text index reads the tags' words from this text. */
  tags: string;
  links: string;
  written_by: string;
  claimed_by: string | null;
  /** 'skill' or null (CardRecord.kind). */
  kind: string | null;
  /** A JSON array of references, or null. */
  evidence: string | null;
  verify: string | null;
  created_at: number;
}

export interface ConnectionRow {
  board_id: string;
  from_id: string;
  to_id: string;
  type: string;
  written_by: string;
  created_at: number;
}

export const boardFromRow = (r: BoardRow): BoardRecord => ({
  id: r.id,
  title: r.title,
  owner: r.owner,
  visibility: r.visibility,
  sharedWith: JSON.parse(r.shared_with) as string[],
  cardCount: r.card_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const cardFromRow = (r: CardRow): CardRecord => ({
  id: r.id,
  boardId: r.board_id,
  position: r.position,
  text: r.text,
  ...(r.title !== null ? { title: r.title } : {}),
  tags: JSON.parse(r.tags) as string[],
  links: JSON.parse(r.links) as string[],
  writtenBy: r.written_by,
  ...(r.claimed_by !== null ? { claimedBy: r.claimed_by } : {}),
  ...(r.kind === 'skill' ? { kind: 'skill' as const } : {}),
  ...(r.evidence !== null ? { evidence: JSON.parse(r.evidence) as string[] } : {}),
  ...(r.verify !== null ? { verify: r.verify } : {}),
  createdAt: r.created_at,
});

export const cardToRow = (c: NewCard, boardId: string, position: number): CardRow => ({
  board_id: boardId,
  id: c.id,
  position,
  text: c.text,
  title: c.title ?? null,
  tags: JSON.stringify(c.tags),
  links: JSON.stringify(c.links),
  written_by: c.writtenBy,
  claimed_by: c.claimedBy ?? null,
  kind: c.kind ?? null,
  evidence: c.evidence ? JSON.stringify(c.evidence) : null,
  verify: c.verify ?? null,
  created_at: c.createdAt,
});

export const connectionFromRow = (r: ConnectionRow): ConnectionRecord => ({
  boardId: r.board_id,
  from: r.from_id,
  to: r.to_id,
  type: r.type,
  writtenBy: r.written_by,
  createdAt: r.created_at,
});
