/**
 * The board file: a whole board (cards with ids, connections, provenance) as one JSON document,
 * `application/vnd.muster.board+json`, version 1. `board.create`, `board.read` and
 * `board.remember` answer it as a file part; `muster board export` writes it and `import` makes a
 * board from it. docs/memory-boards.md documents the format; a later version adds fields, never
 * changes one.
 */
import { z } from 'zod';
import type { Part } from '../../a2a/types.js';
import type { BoardRecord, CardRecord, ConnectionRecord } from '../../store/store.js';

export const BOARD_MEDIA_TYPE = 'application/vnd.muster.board+json';
export const BOARD_FORMAT = 'muster.board';
export const BOARD_FILE_VERSION = 1;

const iso = (ms: number) => new Date(ms).toISOString();

/** A board without its cards, as lists and skill results show it. */
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

export interface BoardFile {
  format: typeof BOARD_FORMAT;
  version: typeof BOARD_FILE_VERSION;
  board: { id: string; title: string; owner: string; visibility: BoardRecord['visibility']; sharedWith: string[]; createdAt: string; updatedAt: string };
  cards: { id: string; position: number; text: string; title?: string; tags: string[]; links: string[]; writtenBy: string; claimedBy?: string; createdAt: string }[];
  connections: { from: string; to: string; type: string; writtenBy: string; createdAt: string }[];
}

export function boardFile(board: BoardRecord, cards: readonly CardRecord[], connections: readonly ConnectionRecord[]): BoardFile {
  return {
    format: BOARD_FORMAT,
    version: BOARD_FILE_VERSION,
    board: { id: board.id, title: board.title, owner: board.owner, visibility: board.visibility, sharedWith: board.sharedWith, createdAt: iso(board.createdAt), updatedAt: iso(board.updatedAt) },
    cards: cards.map((c) => ({
      id: c.id,
      position: c.position,
      text: c.text,
      ...(c.title !== undefined ? { title: c.title } : {}),
      tags: c.tags,
      links: c.links,
      writtenBy: c.writtenBy,
      ...(c.claimedBy !== undefined ? { claimedBy: c.claimedBy } : {}),
      createdAt: iso(c.createdAt),
    })),
    connections: connections.map((c) => ({ from: c.from, to: c.to, type: c.type, writtenBy: c.writtenBy, createdAt: iso(c.createdAt) })),
  };
}

/** The file name a board is exported under: its title's words, then the format's suffix. */
export const boardFileName = (title: string): string =>
  `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'board'}.muster-board.json`;

/**
 * The board file as a part: inline (`raw`) up to `inlineMax` bytes, else a link to where the hub
 * serves it (`url`: GET /api/boards/{id}, which answers the board as it is then).
 */
export function boardFilePart(file: BoardFile, inlineMax: number, hubUrl: string | undefined): Part {
  const json = JSON.stringify(file);
  const named = { mediaType: BOARD_MEDIA_TYPE, filename: boardFileName(file.board.title) };
  if (Buffer.byteLength(json) <= inlineMax || hubUrl === undefined) return { raw: Buffer.from(json).toString('base64'), ...named };
  return { url: `${hubUrl}api/boards/${encodeURIComponent(file.board.id)}`, ...named };
}

/** What an import reads of a board file (provenance is the importer's: the hub stamps it again). */
export const boardFileSchema = z.object({
  format: z.literal(BOARD_FORMAT, `must be "${BOARD_FORMAT}"`),
  version: z.literal(BOARD_FILE_VERSION, `must be ${BOARD_FILE_VERSION}: this hub reads board files of version ${BOARD_FILE_VERSION}`),
  board: z.object({ title: z.string(), visibility: z.enum(['private', 'shared', 'public']).optional(), sharedWith: z.array(z.string()).optional() }).loose(),
  cards: z.array(z.object({ id: z.string(), text: z.string(), title: z.string().optional(), tags: z.array(z.string()).optional(), links: z.array(z.string()).optional() }).loose()),
  connections: z.array(z.object({ from: z.string(), to: z.string(), type: z.string() }).loose()).optional(),
});
