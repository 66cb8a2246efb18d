/**
 * A board as the hub shows it, made from its stored records: the summary lists and skill results
 * show, and the whole board file (board-file.ts, the format).
 */
import type { BoardRecord, CardRecord, ConnectionRecord } from '../../store/store.js';
import { BOARD_FILE_VERSION, BOARD_FORMAT, type BoardFile } from './board-file.js';
import { isoTime } from '../../wire/iso-time.js';

/** A board without its cards, as lists and skill results show it. */
export const boardSummary = (b: BoardRecord) => ({
  id: b.id,
  title: b.title,
  owner: b.owner,
  visibility: b.visibility,
  ...(b.visibility === 'shared' ? { sharedWith: b.sharedWith } : {}),
  cards: b.cardCount,
  createdAt: isoTime(b.createdAt),
  updatedAt: isoTime(b.updatedAt),
});

export function boardFile(
  board: BoardRecord,
  cards: readonly CardRecord[],
  connections: readonly ConnectionRecord[],
): BoardFile {
  return {
    format: BOARD_FORMAT,
    version: BOARD_FILE_VERSION,
    board: {
      id: board.id,
      title: board.title,
      owner: board.owner,
      visibility: board.visibility,
      sharedWith: board.sharedWith,
      createdAt: isoTime(board.createdAt),
      updatedAt: isoTime(board.updatedAt),
    },
    cards: cards.map((c) => ({
      id: c.id,
      position: c.position,
      text: c.text,
      ...(c.title !== undefined ? { title: c.title } : {}),
      tags: c.tags,
      links: c.links,
      writtenBy: c.writtenBy,
      ...(c.claimedBy !== undefined ? { claimedBy: c.claimedBy } : {}),
      ...(c.kind !== undefined ? { kind: c.kind } : {}),
      ...(c.evidence !== undefined ? { evidence: c.evidence } : {}),
      ...(c.verify !== undefined ? { verify: c.verify } : {}),
      createdAt: isoTime(c.createdAt),
    })),
    connections: connections.map((c) => ({
      from: c.from,
      to: c.to,
      type: c.type,
      writtenBy: c.writtenBy,
      createdAt: isoTime(c.createdAt),
    })),
  };
}
