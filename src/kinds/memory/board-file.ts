/**
 * The board file: a whole board (cards with ids, connections, provenance) as one JSON document,
 * `application/vnd.muster.board+json`, version 1. `board.create`, `board.read` and
 * `board.remember` answer it as a file part; `muster board export` writes it and `import` makes a
 * board from it. docs/memory-boards.md documents the format; a later version adds fields, never
 * changes one. The format only, importing nothing of the hub (the CLI reads and writes it); the
 * hub makes it from a board's records in board-view.ts.
 */
import { z } from 'zod';
import type { Part } from '../../a2a/types.js';

export const BOARD_MEDIA_TYPE = 'application/vnd.muster.board+json';
export const BOARD_FORMAT = 'muster.board';
export const BOARD_FILE_VERSION = 1;

export interface BoardFile {
  format: typeof BOARD_FORMAT;
  version: typeof BOARD_FILE_VERSION;
  board: {
    id: string;
    title: string;
    owner: string;
    visibility: 'private' | 'shared' | 'public';
    sharedWith: string[];
    createdAt: string;
    updatedAt: string;
  };
  cards: {
    id: string;
    position: number;
    text: string;
    title?: string;
    tags: string[];
    links: string[];
    writtenBy: string;
    claimedBy?: string;
    kind?: 'skill';
    evidence?: string[];
    verify?: string;
    createdAt: string;
  }[];
  connections: { from: string; to: string; type: string; writtenBy: string; createdAt: string }[];
}

/** The file name a board is exported under: its title's words, then the format's suffix. */
export const boardFileName = (title: string): string =>
  `${
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'board'
  }.muster-board.json`;

/**
 * The board file as a part: inline (`raw`) up to `inlineMax` bytes, else a link to where the hub
 * serves it (`url`: GET /api/boards/{id}, which answers the board as it is then).
 */
export function boardFilePart(file: BoardFile, inlineMax: number, hubUrl: string | undefined): Part {
  const json = JSON.stringify(file);
  const named = { mediaType: BOARD_MEDIA_TYPE, filename: boardFileName(file.board.title) };
  if (Buffer.byteLength(json) <= inlineMax || hubUrl === undefined)
    return { raw: Buffer.from(json).toString('base64'), ...named };
  return { url: `${hubUrl}api/boards/${encodeURIComponent(file.board.id)}`, ...named };
}

/** What an import reads of a board file (provenance is the importer's: the hub stamps it again). */
export const boardFileSchema = z.object({
  format: z.literal(BOARD_FORMAT, `must be "${BOARD_FORMAT}"`),
  version: z.literal(
    BOARD_FILE_VERSION,
    `must be ${BOARD_FILE_VERSION}: this hub reads board files of version ${BOARD_FILE_VERSION}`,
  ),
  board: z
    .object({
      title: z.string(),
      visibility: z.enum(['private', 'shared', 'public']).optional(),
      sharedWith: z.array(z.string()).optional(),
    })
    .loose(),
  cards: z.array(
    z
      .object({
        id: z.string(),
        text: z.string(),
        title: z.string().optional(),
        tags: z.array(z.string()).optional(),
        links: z.array(z.string()).optional(),
      })
      .loose(),
  ),
  connections: z.array(z.object({ from: z.string(), to: z.string(), type: z.string() }).loose()).optional(),
});
