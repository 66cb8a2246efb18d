/**
 * The memory skills as a caller sees them: each one's id, name, description, the args it takes
 * (its schema, field by field) and an example call. Wire only, importing nothing of the hub: the
 * hub runs them (skills.ts) and the MCP tools are made from them.
 */
import { z } from 'zod';
import type { JsonObject } from '../../a2a/types.js';
import {
  addedCardsArg,
  boardRef,
  cardsArg,
  connectionsArg,
  evidenceArg,
  sharedWithArg,
  tagsArg,
  verifyArg,
  visibilityArg,
} from './args.js';
import { MEMORY_LIMITS as L } from './limits.js';

export interface SkillSpec {
  id: string;
  name: string;
  description: string;
  /** Args a call must carry before the skill runs; without them it asks for them. */
  needs: readonly string[];
  /**
   * What it takes, field by field: the skill's run checks a call's args against this, and a call that
   * lacks some of `needs` has the args it carries checked against it first (see `checkPresent`).
   */
  args: z.ZodObject;
  /** A data part that calls it. */
  example: JsonObject;
  /** Whether it answers the board as a file. */
  answersBoard: boolean;
}

export const createArgs = z
  .object({
    title: boardRef.describe("the new board's title"),
    cards: cardsArg,
    connections: connectionsArg.optional(),
    visibility: visibilityArg.default('private'),
    sharedWith: sharedWithArg.optional(),
  })
  .strict();

export const rememberArgs = z
  .object({
    board: boardRef,
    cards: addedCardsArg,
    connections: connectionsArg.optional(),
    evidence: evidenceArg.optional(),
    verify: verifyArg.optional(),
  })
  .strict();

export const learnArgs = z
  .object({
    text: z
      .string('must be text')
      .trim()
      .min(1, 'must not be empty')
      .max(L.cardText, `must be at most ${L.cardText} characters`)
      .describe('the how-to or the gotcha, in words ("#word" tags it)'),
    title: z
      .string('must be text')
      .trim()
      .min(1, 'must not be empty')
      .max(L.title, `must be at most ${L.title} characters`)
      .optional()
      .describe("the skill's name"),
    tags: tagsArg.optional().describe('words that tag the skill card (a "#word" in text tags it too)'),
    evidence: evidenceArg.optional(),
    verify: verifyArg.optional(),
    board: boardRef.optional().describe('a board id or title; your own board when left out'),
  })
  .strict();

export const recallArgs = z
  .object({
    query: z
      .string('must be text')
      .trim()
      .min(1, 'must not be empty')
      .max(L.query, `must be at most ${L.query} characters`)
      .describe('words and #tags to match'),
    board: boardRef.optional(),
    limit: z
      .number('must be a number')
      .int('must be a whole number')
      .min(1, `must be from 1 to ${L.recallLimit.max}`)
      .max(L.recallLimit.max, `must be from 1 to ${L.recallLimit.max}`)
      .default(L.recallLimit.default)
      .describe(`at most this many cards (1 to ${L.recallLimit.max}, default ${L.recallLimit.default})`),
  })
  .strict();

export const boardArgs = z.object({ board: boardRef }).strict();
export const noArgs = z.object({}).strict();

export const CONNECT = 'board.connect';
export const LEARN = 'board.learn';

/** The caller's own board, which "Remember that …" and board.learn write to by default: made by the first write to it. */
export const ownBoardId = (handle: string) => `memory-${handle}`;

const BOARD_EXAMPLE = { board: 'Launch plan' };

export const SKILL_SPECS: readonly SkillSpec[] = [
  {
    id: 'board.create',
    name: 'Make a board',
    description:
      "Makes a board from cards (texts or {text, title, tags, links, id}) and typed connections between them (from/to: a card's place in cards, or its id); private unless visibility says shared (with sharedWith) or public. Answers the board as a file.",
    needs: ['title', 'cards'],
    args: createArgs,
    example: {
      skill: 'board.create',
      args: {
        title: 'Launch plan',
        cards: ['Ship the A2A face', { text: 'Seed the directory #launch', title: 'Directory' }],
        connections: [{ from: 0, to: 1, type: 'leads_to' }],
      },
    },
    answersBoard: true,
  },
  {
    id: 'board.remember',
    name: 'Remember',
    description:
      'Appends cards (and connections) to a board you own or that is shared with you, keeping every earlier card and its id. One card may come with evidence (references) and verify (how to check it), kept as text and never run. Answers the board as a file.',
    needs: ['board', 'cards'],
    args: rememberArgs,
    example: {
      skill: 'board.remember',
      args: { board: 'Launch plan', cards: ['We chose PostgreSQL for many nodes #decision'] },
    },
    answersBoard: true,
  },
  {
    id: LEARN,
    name: 'Learn a skill',
    description:
      'Keeps a reusable how-to or gotcha as a skill card (on your own board unless board names another you may write), which recall puts before every plain card it finds. With evidence (references) and verify (how to check it), kept as text and never run. Answers the board as a file.',
    needs: ['text'],
    args: learnArgs,
    example: {
      skill: LEARN,
      args: {
        title: 'Run the PostgreSQL suite',
        text: 'Set MUSTER_TEST_PG before npx vitest run, or the suite runs on SQLite alone #testing',
        evidence: ['docs/architecture.md'],
        verify: 'MUSTER_TEST_PG=postgres://postgres@127.0.0.1:5432 npx vitest run test/memory-boards.test.ts',
      },
    },
    answersBoard: true,
  },
  {
    id: 'board.recall',
    name: 'Recall',
    description:
      "Finds the cards that best match a query's words and #tags across the boards you may read (or one board), best first: skill cards before plain ones.",
    needs: ['query'],
    args: recallArgs,
    example: { skill: 'board.recall', args: { query: 'database #decision', limit: 5 } },
    answersBoard: false,
  },
  {
    id: 'board.read',
    name: 'Read a board',
    description: 'Reads one board: its cards in order and its connections. Answers the board as a file.',
    needs: ['board'],
    args: boardArgs,
    example: { skill: 'board.read', args: BOARD_EXAMPLE },
    answersBoard: true,
  },
  {
    id: 'board.list',
    name: 'List boards',
    description: 'Lists the boards you may read, latest changed first.',
    needs: [],
    args: noArgs,
    example: { skill: 'board.list', args: {} },
    answersBoard: false,
  },
  {
    id: 'board.insights',
    name: 'Board insights',
    description:
      "Names a board's hubs (most connected cards), orphans (no connections) and open questions (cards that ask, with no answer connected).",
    needs: ['board'],
    args: boardArgs,
    example: { skill: 'board.insights', args: BOARD_EXAMPLE },
    answersBoard: false,
  },
  {
    id: CONNECT,
    name: 'Connect related cards',
    description:
      'Proposes connections between related cards that are not connected, and asks first: a follow-up with the same taskId and {"confirm": true} draws them; anything else leaves the board as it is.',
    needs: ['board'],
    args: boardArgs,
    example: { skill: CONNECT, args: BOARD_EXAMPLE },
    answersBoard: false,
  },
];
