/**
 * `muster board import`: a board file written again through the memory skills, within their
 * per-call limits. The hub refuses a link to a card that is neither on the board nor in the same
 * call, and no skill adds links to a card once it is written, so the cards go in the file's order
 * in runs (one call each) cut where no card links past the cut; the file's connections follow,
 * once every card is on the board. A board the hub made always has such cuts (it wrote each card
 * with its links in one call of at most 100); a hand-made file may not, and a link that would
 * name a card of a later call is drawn instead as a connection of type `links`, and counted.
 *
 * The file is checked before anything is sent (each card as the hub checks it, every link and
 * connection naming a card of the file), so what stops an import part-way is the hub or the way
 * to it. Card ids are the file's, and a card sent again is written once: the error says which
 * cards are on the board, and `--resume BOARD` with the same file finishes it.
 */
import type { z } from 'zod';
import { CliError, EXIT, UsageError } from '../../../client/errors.js';
import type { Task } from '../../../client/wire.js';
import { LIMITS } from '../../../wire/limits.js';
import { cardObject, connectionArg } from '../args.js';
import type { BoardFile } from '../board-file.js';
import { MEMORY_LIMITS as L } from '../limits.js';

/** A card as an import sends it (provenance is the importer's: the hub stamps it again). */
interface ImportCard {
  id: string;
  text: string;
  title?: string;
  tags: string[];
  links: string[];
}

interface Connection {
  from: string;
  to: string;
  type: string;
}

/** The cards one call writes: the file's cards from place `start`. */
interface CardRun {
  start: number;
  cards: ImportCard[];
}

export interface ImportPlan {
  runs: CardRun[];
  /** The file's connections, then the links no run could carry, in calls of at most 200. */
  connectionCalls: Connection[][];
  /** Links drawn as connections of type `links`: they named a card of a later call. */
  linksAsConnections: number;
  cardCount: number;
}

/** One memory skill call, answering its task (a refusal throws). */
export type SkillCall = (skill: string, args: object) => Promise<Task>;

export interface ImportTarget {
  /** The board to finish (its id), or none: a new board is made. */
  resume?: string;
  /** The new board's title. */
  title: string;
  visibility: object;
  /** How the command was run, for the hint that finishes a stopped import. */
  fileName: string;
}

// A call's data part is at most LIMITS.dataPartBytes of JSON: its cards get that, less room for
// the skill, the title, the board and sharedWith beside them. 200 connections always fit.
const CARD_BYTES_PER_CALL = LIMITS.dataPartBytes - 8 * 1024;
const LINKS_TYPE = 'links';

const place = (path: readonly PropertyKey[]) =>
  path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');

/** Refuses, before anything is sent, what the hub would refuse only after writing the cards before it. */
function checked<T extends z.ZodType>(schema: T, value: unknown, at: string, fileName: string): void {
  const issue = schema.safeParse(value).error?.issues[0];
  if (issue)
    throw new UsageError(
      `${fileName}: ${at}${place(issue.path)} ${issue.message}`,
      'Fix it in the file: nothing was sent',
    );
}

function importCards(file: BoardFile, fileName: string): ImportCard[] {
  if (!file.cards.length) throw new UsageError('The board file holds no card', 'A board needs at least one card');
  if (file.cards.length > L.cardsPerBoard)
    throw new UsageError(
      `${fileName} holds ${file.cards.length} cards; a board holds at most ${L.cardsPerBoard}`,
      'Split the file: nothing was sent',
    );
  const cards = file.cards.map((c) => ({
    id: c.id,
    text: c.text,
    ...(c.title !== undefined ? { title: c.title } : {}),
    tags: c.tags ?? [],
    links: c.links ?? [],
  }));
  cards.forEach((card, i) => checked(cardObject, card, `cards[${i}]`, fileName));
  return cards;
}

/** Each card's place in the file, by id; an id given twice, a link or a connection naming no card of the file, refused. */
function placesOf(
  cards: readonly ImportCard[],
  connections: readonly Connection[],
  fileName: string,
): Map<string, number> {
  const places = new Map<string, number>();
  cards.forEach((card, i) => {
    if (places.has(card.id))
      throw new UsageError(
        `${fileName}: cards[${i}].id repeats the id of cards[${places.get(card.id)}] (${card.id})`,
        'Give each card its own id: nothing was sent',
      );
    places.set(card.id, i);
  });
  const mustName = (id: string, at: string) => {
    if (!places.has(id))
      throw new UsageError(
        `${fileName}: ${at} names no card of the file: ${id}`,
        'Name the id of a card in the file: nothing was sent',
      );
  };
  cards.forEach((card, i) => card.links.forEach((link, j) => mustName(link, `cards[${i}].links[${j}]`)));
  connections.forEach((c, i) => {
    checked(connectionArg, c, `connections[${i}]`, fileName);
    mustName(c.from, `connections[${i}].from`);
    mustName(c.to, `connections[${i}].to`);
  });
  return places;
}

/** The end of the longest run from `start` within one call's limits: 100 cards, and their bytes. */
function furthestEnd(cards: readonly ImportCard[], start: number): number {
  let end = start;
  let bytes = 0;
  while (end < cards.length && end - start < L.cardsPerCall) {
    bytes += Buffer.byteLength(JSON.stringify(cards[end])) + 1;
    if (bytes > CARD_BYTES_PER_CALL && end > start) break;
    end++;
  }
  return end;
}

/** Where the run from `start` ends: the furthest cut within the limits that no card of the run links past; with none, the furthest. */
function runEnd(cards: readonly ImportCard[], places: ReadonlyMap<string, number>, start: number): number {
  const furthest = furthestEnd(cards, start);
  let reach = -1; // the furthest place a card of the run so far links to
  let cut: number | undefined;
  for (let end = start + 1; end <= furthest; end++) {
    reach = Math.max(reach, ...cards[end - 1]!.links.map((l) => places.get(l)!));
    if (reach < end) cut = end;
  }
  return cut ?? furthest;
}

/** Splits `items` into runs of at most `size`. */
const inRuns = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The calls that write `file` again, checked whole first: a file the hub would refuse part-way is refused before anything is sent. */
export function planImport(file: BoardFile, fileName: string): ImportPlan {
  const cards = importCards(file, fileName);
  const fileConnections = (file.connections ?? []).map(({ from, to, type }) => ({ from, to, type }));
  const places = placesOf(cards, fileConnections, fileName);
  const runs: CardRun[] = [];
  const pastRun: Connection[] = [];
  for (let start = 0; start < cards.length;) {
    const end = runEnd(cards, places, start);
    const run = cards.slice(start, end).map((card) => {
      const later = card.links.filter((l) => places.get(l)! >= end);
      pastRun.push(...later.map((to) => ({ from: card.id, to, type: LINKS_TYPE })));
      return later.length ? { ...card, links: card.links.filter((l) => !later.includes(l)) } : card;
    });
    runs.push({ start, cards: run });
    start = end;
  }
  return {
    runs,
    connectionCalls: inRuns([...fileConnections, ...pastRun], L.connectionsPerCall),
    linksAsConnections: pastRun.length,
    cardCount: cards.length,
  };
}

const counted = (n: number, thing: string) => `${n} ${thing}${n === 1 ? '' : 's'}`;
const boardOf = (task: Task) => (task.metadata?.['muster'] as { board?: string } | undefined)?.board;

/** The task of a call that completed; any other answer is a failure (an import asks nothing). */
function completed(task: Task): Task {
  if (task.status.state !== 'TASK_STATE_COMPLETED')
    throw new CliError(
      'CLIENT_ERROR',
      `the hub answered call ${task.id} ${task.status.state}, not completed`,
      EXIT.refused,
    );
  return task;
}

/** How far an import got: the file's cards before `cards` are on `board`, and the first `connections` connections. */
interface Progress {
  board: string;
  cards: number;
  connections: number;
}

/** A failure after the board was made, said with what is on it and how to finish: the cause's code, exit status and fields are kept. */
function stopped(cause: unknown, at: Progress, plan: ImportPlan, target: ImportTarget): CliError {
  const error =
    cause instanceof CliError ? cause : new CliError('CLIENT_ERROR', (cause as Error).message, EXIT.refused);
  const first = plan.runs.flatMap((r) => r.cards)[at.cards];
  const held = at.cards ? `the file's cards[0] to cards[${at.cards - 1}]` : "none of the file's cards for sure";
  const where = first
    ? `board ${at.board} holds ${held}; the first card not known to be on it is cards[${at.cards}] (id ${first.id})`
    : `board ${at.board} holds every card of the file, and ${at.connections} of its ${plan.connectionCalls.flat().length} connections`;
  const hint = `Finish it with the same file: muster board import ${target.fileName} --resume ${at.board} (what is on the board already is not written again)`;
  return new CliError(
    error.code,
    `The import stopped part-way: ${where}. What stopped it: ${error.message}`,
    error.exit,
    hint,
    error.status,
    error.fields,
  );
}

/** Writes the plan's calls in order; answers the last call's task. */
export async function importBoard(call: SkillCall, plan: ImportPlan, target: ImportTarget): Promise<Task> {
  let board = target.resume;
  const done = { cards: 0, connections: 0 };
  let task: Task | undefined;
  try {
    for (const run of plan.runs) {
      task = completed(
        board === undefined
          ? await call('board.create', { title: target.title, cards: run.cards, ...target.visibility })
          : await call('board.remember', { board, cards: run.cards }),
      );
      board = boardOf(task) ?? board;
      done.cards = run.start + run.cards.length;
    }
    for (const connections of plan.connectionCalls) {
      task = completed(await call('board.remember', { board, cards: [], connections }));
      done.connections += connections.length;
    }
  } catch (e) {
    // Before the board was made nothing is on it: the refusal is the whole story.
    throw board === undefined ? e : stopped(e, { board, ...done }, plan, target);
  }
  return task!;
}

/** What an import did, for people. */
export function importSaid(task: Task, plan: ImportPlan): string {
  const result = task.artifacts?.find((a) => a.artifactId === 'result')?.parts.find((p) => p.data !== undefined)
    ?.data as { board?: { id: string; title: string } } | undefined;
  const board = result?.board ? `"${result.board.title}" (${result.board.id})` : boardOf(task);
  const asConnections = plan.linksAsConnections
    ? `; ${plan.linksAsConnections} of its links named a card of a later call: drawn as connections of type "${LINKS_TYPE}"`
    : '';
  return `Imported ${counted(plan.cardCount, 'card')} and ${counted(plan.connectionCalls.flat().length - plan.linksAsConnections, 'connection')} into ${board}${asConnections}.`;
}
