/**
 * The board skills: what each takes, what it must be given before it runs (a call without it
 * answers input-required and resumes when a follow-up brings it), and what it does. A skill
 * reads and writes boards only through `BoardAccess`, which holds the caller's scope.
 */
import type { JsonObject } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import type { BoardRecord, BoardWrite, CardRecord, RecallQuery, RecalledCard } from '../../store/store.js';
import { invalidParams, isHubError } from '../../errors/hub-error.js';
import { ARGS } from '../../wire/skill-call.js';
import type { Published } from '../../wire/screening.js';
import {
  boardArgs,
  CONNECT,
  createArgs,
  LEARN,
  learnArgs,
  noArgs,
  ownBoardId,
  recallArgs,
  rememberArgs,
  SKILL_SPECS,
  type SkillSpec,
} from './skill-specs.js';
import { checkLinks, derivedId, newCards, newConnections, type Writer } from './card-writes.js';
import type { CardArg, ConnectionArg } from './args.js';
import { boardSummary } from './board-view.js';
import { insights, proposeConnections } from './insights.js';
import { MEMORY_LIMITS as L } from './limits.js';
import { splitQuery } from './words.js';
import {
  cardData,
  cardLine,
  cardsWord,
  connectionsWord,
  done,
  type BoardContents,
  type Outcome,
  type Pending,
} from './outcomes.js';

/** The boards as one caller may use them. */
export interface BoardAccess {
  /** The board `ref` (an id, or a title) names among those the caller may read, or write; BOARD_NOT_FOUND otherwise. */
  find(ref: string, purpose: 'read' | 'write', field: string): Promise<BoardRecord>;
  contents(board: BoardRecord): Promise<BoardContents>;
  /** The cards of the board among `ids`: what a write checks its new cards and links against. */
  cards(board: BoardRecord, ids: readonly string[]): Promise<CardRecord[]>;
  list(): Promise<{ boards: BoardRecord[]; hasMore: boolean }>;
  recall(query: RecallQuery): Promise<RecalledCard[]>;
  /**
   * `texts`: the caller's texts the write puts on the board (its new board's, or `onto`'s), by
   * field; screened when that board is public (hub/publishing.ts).
   */
  write(
    write: Omit<BoardWrite, 'maxCards' | 'maxBoards' | 'at'>,
    texts: { onto?: BoardRecord; published: Published },
  ): Promise<BoardRecord>;
  /** Refuses, naming `field[i]`, a handle no agent has. */
  requireAgents(handles: readonly string[], field: string): Promise<void>;
}

/** A skill as the hub runs it. */
export interface Skill extends SkillSpec {
  run(env: MemoryEnv, args: unknown): Promise<Outcome>;
}

export interface MemoryEnv {
  caller: string;
  writer: Writer;
  boards: BoardAccess;
  /** Whether the caller takes the board file in answers (acceptedOutputModes): without it, a write reads no contents to answer. */
  wantsFile: boolean;
}

/** The capture fields of a one-card write: refused with more or fewer cards, which they would not describe. */
function captureOf(args: { cards: readonly unknown[]; evidence?: string[]; verify?: string }): Capture {
  if ((args.evidence || args.verify) && args.cards.length !== 1)
    throw invalidParams(
      `${ARGS}.${args.evidence ? 'evidence' : 'verify'}`,
      `describes one card, but this call has ${args.cards.length}`,
      'Send evidence and verify with one card, or send the cards without them',
    );
  return { ...(args.evidence ? { evidence: args.evidence } : {}), ...(args.verify ? { verify: args.verify } : {}) };
}
type Capture = Pick<CardRecord, 'kind' | 'evidence' | 'verify'>;

async function withContents(env: MemoryEnv, board: BoardRecord): Promise<BoardRecord & BoardContents> {
  return { ...board, ...(await env.boards.contents(board)) };
}

/** A written board as its answer's file, read only when the caller takes the file. */
const writtenFile = async (env: MemoryEnv, board: BoardRecord) =>
  env.wantsFile ? withContents(env, board) : undefined;

async function create(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  const args = parseWith(createArgs, raw, ARGS);
  if (args.sharedWith?.length && args.visibility !== 'shared') {
    throw invalidParams(
      `${ARGS}.sharedWith`,
      'is only for a board with visibility "shared"',
      'Send "visibility": "shared" with it, or leave sharedWith out',
    );
  }
  const sharedWith = [...new Set(args.sharedWith ?? [])];
  await env.boards.requireAgents(sharedWith, `${ARGS}.sharedWith`);
  const cards = newCards(args.cards, env.writer, `${ARGS}.cards`);
  checkLinks(cards, new Set(), `${ARGS}.cards`);
  const connections = newConnections(args.connections ?? [], cards, new Set(), env.writer, `${ARGS}.connections`);
  const id = derivedId(env.writer.seed, 'board');
  const board = await env.boards.write(
    {
      create: {
        id,
        title: args.title,
        owner: env.caller,
        visibility: args.visibility,
        sharedWith,
        createdAt: env.writer.now,
      },
      boardId: id,
      cards,
      connections,
    },
    { published: { [ARGS]: { title: args.title, cards: args.cards, connections: args.connections } } },
  );
  const full = await writtenFile(env, board);
  return done(
    `Made the board "${board.title}" (${board.id}) with ${cardsWord(board.cardCount)} and ${connectionsWord(connections.length)}.`,
    { board: boardSummary(board) },
    full,
  );
}

// No refinement across fields here: `checkPresent` makes fields optional, and a refinement would read them.
async function remember(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  const args = parseWith(rememberArgs, raw, ARGS);
  const { cards, connections, evidence, verify } = args;
  return append(env, args, captureOf(args), { [ARGS]: { cards, connections, evidence, verify } });
}

/** A skill card (a how-to), on the caller's own board unless `board` names another it may write. */
async function learn(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  const { text, title, tags, evidence, verify, board } = parseWith(learnArgs, raw, ARGS);
  const card = { text, ...(title ? { title } : {}), ...(tags ? { tags } : {}) };
  const capture = { kind: 'skill' as const, ...(evidence ? { evidence } : {}), ...(verify ? { verify } : {}) };
  const published = { [ARGS]: { text, title, tags, evidence, verify } };
  const outcome = await append(env, { board: board ?? ownBoardId(env.caller), cards: [card] }, capture, published);
  const on = (outcome.data['board'] as { title: string }).title;
  return { ...outcome, text: `Learned "${title ?? text.slice(0, 60)}" as a skill card on "${on}".` };
}

/** Appends cards and connections to a board (the caller's own is made by its first write), each card with `capture`. */
async function append(
  env: MemoryEnv,
  args: { board: string; cards: CardArg[]; connections?: ConnectionArg[] | undefined },
  capture: Capture,
  published: Published,
): Promise<Outcome> {
  if (!args.cards.length && !args.connections?.length)
    throw invalidParams(
      `${ARGS}.cards`,
      'must hold at least one card (or send connections to draw)',
      'Send the cards to add, or connections to draw between cards on the board',
    );
  const own = ownBoardId(env.caller);
  const target = await env.boards.find(args.board, 'write', `${ARGS}.board`).catch((e: unknown) => {
    if (args.board === own && isHubError(e) && e.code === 'BOARD_NOT_FOUND') return undefined; // made now
    throw e;
  });
  // Only the board's cards the call names (its cards' ids, their links, its connections' ends): not the whole board.
  const named = newCards(args.cards, env.writer, `${ARGS}.cards`);
  const ids = [
    ...named.flatMap((c) => [c.id, ...c.links]),
    ...(args.connections ?? []).flatMap((c) => [c.from, c.to]).filter((end) => typeof end === 'string'),
  ];
  const onBoard = new Map((target ? await env.boards.cards(target, [...new Set(ids)]) : []).map((c) => [c.id, c]));
  const known = new Set(onBoard.keys());
  const cards = newCards(args.cards, env.writer, `${ARGS}.cards`, onBoard).map((c) => ({ ...c, ...capture }));
  checkLinks(cards, known, `${ARGS}.cards`);
  const connections = newConnections(args.connections ?? [], cards, known, env.writer, `${ARGS}.connections`);
  const before = target?.cardCount ?? 0;
  const board = await env.boards.write(
    {
      ...(target
        ? {}
        : {
            create: {
              id: own,
              title: `Memory of ${env.caller}`,
              owner: env.caller,
              visibility: 'private' as const,
              sharedWith: [],
              createdAt: env.writer.now,
            },
          }),
      boardId: target?.id ?? own,
      cards,
      connections,
    },
    target ? { onto: target, published } : { published },
  );
  const full = await writtenFile(env, board);
  const added = board.cardCount - before;
  const drawn = connections.length ? ` and ${connectionsWord(connections.length)}` : '';
  return done(
    `Added ${cardsWord(added)}${drawn} to "${board.title}", which now holds ${cardsWord(board.cardCount)}.`,
    { board: boardSummary(board), added: cards.map((c) => c.id) },
    full,
  );
}

async function recall(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  const args = parseWith(recallArgs, raw, ARGS);
  const board = args.board === undefined ? undefined : await env.boards.find(args.board, 'read', `${ARGS}.board`);
  const { words, tags } = splitQuery(args.query);
  const found = await env.boards.recall({ words, tags, limit: args.limit, ...(board ? { boardId: board.id } : {}) });
  const lines = found.map((f, i) => `${i + 1}. [${f.boardTitle}] ${cardLine(f.card)}`);
  const text = found.length
    ? `${cardsWord(found.length)} for "${args.query}":\n${lines.join('\n')}`
    : `Nothing on the boards you may read matches "${args.query}".`;
  return done(text, {
    query: args.query,
    cards: found.map((f) => ({ ...cardData(f.card), board: { id: f.card.boardId, title: f.boardTitle } })),
  });
}

async function read(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  const board = await withContents(
    env,
    await env.boards.find(parseWith(boardArgs, raw, ARGS).board, 'read', `${ARGS}.board`),
  );
  const lines = board.cards.slice(0, L.readText).map((c) => `- ${cardLine(c)}`);
  const more = (shown: number) => (board.cards.length > shown ? board.cards.length - shown : 0);
  const rest = more(L.readText) ? `\n… and ${cardsWord(more(L.readText))} more: the board file has them all` : '';
  return done(
    `# ${board.title}\n${cardsWord(board.cardCount)}, ${connectionsWord(board.connections.length)}\n${lines.join('\n')}${rest}`,
    {
      board: boardSummary(board),
      cards: board.cards.slice(0, L.readData).map(cardData),
      ...(more(L.readData) ? { moreCards: more(L.readData) } : {}),
      connections: board.connections.map(({ from, to, type }) => ({ from, to, type })),
    },
    board,
  );
}

async function list(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  parseWith(noArgs, raw ?? {}, ARGS);
  const { boards, hasMore } = await env.boards.list();
  const lines = boards.map(
    (b) =>
      `- ${b.title} (${b.id}): ${cardsWord(b.cardCount)}, ${b.visibility}${b.owner === env.caller ? '' : `, by ${b.owner}`}`,
  );
  const more = hasMore ? '\nMore boards than these: recall or read one by its title.' : '';
  return done(
    boards.length
      ? `${boards.length} board${boards.length === 1 ? '' : 's'} you may read:\n${lines.join('\n')}${more}`
      : 'You may read no boards yet: make one with board.create.',
    { boards: boards.map(boardSummary), hasMore },
  );
}

async function boardInsights(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  const board = await withContents(
    env,
    await env.boards.find(parseWith(boardArgs, raw, ARGS).board, 'read', `${ARGS}.board`),
  );
  const found = insights(board.cards, board.connections);
  const named = (cs: CardRecord[]) =>
    cs.length ? cs.map((c) => `"${c.title ?? c.text.slice(0, 60)}"`).join(', ') : 'none';
  const text = [
    `Insights on "${board.title}":`,
    `Hubs: ${found.hubs.length ? found.hubs.map((h) => `"${h.card.title ?? h.card.text.slice(0, 60)}" (${h.degree})`).join(', ') : 'none'}`,
    `Orphans: ${named(found.orphans)}`,
    `Open questions: ${named(found.openQuestions)}`,
  ].join('\n');
  return done(text, {
    board: boardSummary(board),
    hubs: found.hubs.map((h) => ({ card: h.card.id, degree: h.degree })),
    orphans: found.orphans.map((c) => c.id),
    openQuestions: found.openQuestions.map((c) => c.id),
  });
}

async function connect(env: MemoryEnv, raw: unknown): Promise<Outcome> {
  const args = parseWith(boardArgs, raw, ARGS);
  const board = await withContents(env, await env.boards.find(args.board, 'write', `${ARGS}.board`));
  const proposal = proposeConnections(board.cards, board.connections);
  if (!proposal.length)
    return done(`Every related pair of cards on "${board.title}" is connected already: nothing to propose.`, {
      board: boardSummary(board),
      proposal: [],
    });
  const lines = proposal.map((p) => `- ${p.from} → ${p.to} (share ${p.shared.join(', ')})`);
  return {
    state: 'TASK_STATE_INPUT_REQUIRED',
    text: `${connectionsWord(proposal.length)} proposed on "${board.title}":\n${lines.join('\n')}\nSend {"confirm": true} with this taskId to draw them; anything else leaves the board as it is.`,
    data: {
      board: boardSummary(board),
      proposal: proposal.map(({ from, to, type, shared }) => ({ from, to, type, shared })),
    },
    pending: { skill: CONNECT, args: { board: board.id }, proposal },
  };
}

/** Applies a confirmed proposal, or leaves the board as it was. */
export async function settleProposal(env: MemoryEnv, pending: Pending, confirmed: boolean): Promise<Outcome> {
  const board = await env.boards.find(String(pending.args['board']), 'write', `${ARGS}.board`);
  if (!confirmed)
    return done(`Left "${board.title}" as it was: no connection drawn.`, { board: boardSummary(board), drawn: 0 });
  const connections = (pending.proposal ?? []).map((p) => ({
    from: p.from,
    to: p.to,
    type: p.type,
    writtenBy: env.writer.writtenBy,
    createdAt: env.writer.now,
  }));
  // The proposal's connections are the hub's own words: nothing of the caller's is published.
  const after = await env.boards.write({ boardId: board.id, cards: [], connections }, { onto: board, published: {} });
  return done(`Drew ${connectionsWord(connections.length)} on "${after.title}".`, {
    board: boardSummary(after),
    drawn: connections.length,
  });
}

const RUNS: Readonly<Record<string, Skill['run']>> = {
  'board.create': create,
  'board.remember': remember,
  [LEARN]: learn,
  'board.recall': recall,
  'board.read': read,
  'board.list': list,
  'board.insights': boardInsights,
  [CONNECT]: connect,
};

/** Each skill as the hub runs it: its spec and its run. */
export const SKILLS: readonly Skill[] = SKILL_SPECS.map((spec) => ({ ...spec, run: RUNS[spec.id]! }));

export const SKILL_BY_ID: ReadonlyMap<string, Skill> = new Map(SKILLS.map((s) => [s.id, s]));

/**
 * Refuses, before a call asks for what it lacks (`missing`), the args it does carry that are
 * wrong: each checked against the skill's own schema with the missing ones made optional, so a
 * wrong value is refused at once, as docs/memory-boards.md promises, and never after a follow-up.
 * Only the schema: what depends on a board (a link or a connection to a card on it) waits for it.
 */
export function checkPresent(skill: Skill, args: JsonObject, missing: readonly string[]): void {
  // Typed for zod's mask of a shape with string keys (a number key is never a field name).
  const optional = Object.fromEntries(missing.map((m) => [m, true])) as Record<string, true> & Record<number, never>;
  parseWith(skill.args.partial(optional), args, ARGS);
}
