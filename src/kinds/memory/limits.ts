/**
 * The memory kind's limits, in a module that imports nothing: the hub enforces them, the CLI
 * checks them before sending, and docs/memory-boards.md lists them.
 */
export const MEMORY_LIMITS = {
  /** Cards one call may write. */
  cardsPerCall: 100,
  /** Characters of one card's text. */
  cardText: 4_000,
  /** Characters of a card's or a board's title. */
  title: 200,
  /** Tags on one card, and characters of one tag. */
  tagsPerCard: 20,
  tagLength: 40,
  /** Links from one card, and connections one call may write. */
  linksPerCard: 20,
  connectionsPerCall: 200,
  /** Cards one board may hold. */
  cardsPerBoard: 2_000,
  /** Boards one agent may own. */
  boardsPerAgent: 100,
  /** Agents a shared board names. */
  sharedWith: 50,
  /** Characters of a recall query, and the most cards it answers. */
  query: 500,
  recallLimit: { default: 10, max: 50 },
  /** References a card's evidence lists, characters of one, and characters of its verify text. */
  evidence: 10,
  evidenceRef: 500,
  verify: 1_000,
  /** Characters of a claimed author name (stored slugged). */
  author: 40,
  /**
   * The largest board file an answer carries inline (bytes of JSON); a larger board is answered
   * as a link to GET /api/boards/{id}, so answers, and the tasks that keep them, stay small.
   */
  inlineBoardFile: 256 * 1024,
  /** Cards a board.read answer lists in its text part, and in its data part (the file has them all). */
  readText: 50,
  readData: 200,
} as const;
