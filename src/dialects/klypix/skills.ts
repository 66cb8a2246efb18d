/**
 * KLYPIX's skills as its clients name them, each over the memory kind's own skill that does the
 * work: its id, the native skill, the arguments it takes in KLYPIX's words (listed on the card),
 * an example data part, and whether a left-out `canvas` means the caller's own board (KLYPIX's
 * "brain": the board "Remember that …" writes to natively).
 */
import type { JsonObject } from '../../a2a/types.js';
import { CONNECT, LEARN } from '../../kinds/memory/skill-specs.js';

export interface KlypixSkill {
  id: string;
  /** The memory skill that runs it. */
  native: string;
  name: string;
  description: string;
  /** Its arguments, in KLYPIX's names, for the card. */
  args: string;
  /** A data part that calls it. */
  example: JsonObject;
  /** A call without `canvas` works on the caller's own board. */
  onBrain?: true;
  /** Whether it answers the board file. */
  answersBoard?: true;
}

const CARDS = 'cards: [{text, title?, tags?, links?, id?}] (or texts)';
const CONNECTIONS = "connections?: [{from, to, relationship}] (from/to: a card's index in cards, or a card id)";
const CAPTURE = 'evidence?: [references], verify?: text (one-card requests; kept, never run)';
const CANVAS_OR_BRAIN = 'canvas? (a canvas id or title; your own board, the brain, when left out)';

export const KLYPIX_SKILLS: readonly KlypixSkill[] = [
  {
    id: 'make_board',
    native: 'board.create',
    name: 'Make a board',
    description: 'Makes a new board from cards and connections; answers the board file and a summary.',
    args: `title, ${CARDS}, ${CONNECTIONS}, visibility? (private, the default, shared or public), sharedWith?`,
    example: {
      skill: 'make_board',
      args: {
        title: 'Launch plan',
        cards: [{ text: 'Ship A2A face' }, { text: 'Seed MCP directory' }],
        connections: [{ from: 0, to: 1, relationship: 'leads_to' }],
      },
    },
    answersBoard: true,
  },
  {
    id: 'remember',
    native: 'board.remember',
    name: 'Remember',
    description:
      'Appends cards (decisions, facts) to a canvas you may write, keeping every earlier card; answers the board file and a summary.',
    args: `${CANVAS_OR_BRAIN}, ${CARDS}, ${CONNECTIONS}, ${CAPTURE}`,
    example: { skill: 'remember', args: { canvas: 'Launch plan', cards: [{ text: 'We chose Postgres #decision' }] } },
    onBrain: true,
    answersBoard: true,
  },
  {
    id: 'learn_skill',
    native: LEARN,
    name: 'Learn a skill',
    description:
      'Keeps a reusable how-to or gotcha as a skill card, which recall puts first; answers the board file and a summary.',
    args: `text, title?, tags?, ${CAPTURE}, ${CANVAS_OR_BRAIN}`,
    example: {
      skill: 'learn_skill',
      args: {
        title: 'Rotate the hub token',
        text: 'Revoke the old token only after the new one is live',
        evidence: ['docs/identity.md'],
        verify: 'GET /api/me with the new token answers 200',
      },
    },
    onBrain: true,
    answersBoard: true,
  },
  {
    id: 'recall',
    native: 'board.recall',
    name: 'Recall',
    description:
      "Finds the cards matching a query's words and #tags across the canvases you may read, skill cards first.",
    args: 'query, canvas? (only this one), limit? (1 to 50, default 10)',
    example: { skill: 'recall', args: { query: 'auth #decision' } },
  },
  {
    id: 'read_canvas',
    native: 'board.read',
    name: 'Read a canvas',
    description: 'Reads one canvas: its cards in order and its connections; answers the board file too.',
    args: 'canvas (a canvas id or title)',
    example: { skill: 'read_canvas', args: { canvas: 'Launch plan' } },
    answersBoard: true,
  },
  {
    id: 'list_canvases',
    native: 'board.list',
    name: 'List canvases',
    description: 'Lists the canvases you may read, with their card counts, latest changed first.',
    args: 'none',
    example: { skill: 'list_canvases', args: {} },
  },
  {
    id: 'brain_insights',
    native: 'board.insights',
    name: 'Brain insights',
    description: "Names a canvas's hubs (most connected cards), orphans and open questions.",
    args: CANVAS_OR_BRAIN,
    example: { skill: 'brain_insights', args: { canvas: 'Launch plan' } },
    onBrain: true,
  },
  {
    id: 'brain_connect',
    native: CONNECT,
    name: 'Connect related cards',
    description:
      'Proposes connections between related cards that are not connected, and asks first: reply with the same taskId and {"confirm": true} to draw them.',
    args: CANVAS_OR_BRAIN,
    example: { skill: 'brain_connect', args: { canvas: 'Launch plan' } },
    onBrain: true,
  },
];

export const SKILL_BY_ID: ReadonlyMap<string, KlypixSkill> = new Map(KLYPIX_SKILLS.map((s) => [s.id, s]));
export const SKILL_BY_NATIVE: ReadonlyMap<string, KlypixSkill> = new Map(KLYPIX_SKILLS.map((s) => [s.native, s]));
export const SKILL_IDS = KLYPIX_SKILLS.map((s) => s.id).join(', ');

/** KLYPIX skills Muster does not offer, and why (docs/dialects.md lists them too). */
export const NOT_OFFERED: Readonly<Record<string, string>> = {
  search_all_brains:
    'Muster keeps no machine-wide registry of brains to search; recall already searches every canvas you may read',
};

/** The args a write asks for again, rather than refuses, when they are malformed. */
export const ASKED_AGAIN = ['connections'];
