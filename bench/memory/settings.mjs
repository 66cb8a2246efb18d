// The memory bench's settings (MEMORY_* in its environment, see bench/memory.mjs) and the hub's
// limits they must fit, checked at import.
const env = (name, fallback) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got "${process.env[name]}"`);
  return v;
};
export const CARDS = env('MEMORY_CARDS', 100_000);
export const WRITERS = env('MEMORY_WRITERS', 8);
export const AGENTS = env('MEMORY_AGENTS', 10);
export const REMEMBERS = env('MEMORY_REMEMBERS', 1999);
export const REMEMBER_CALLERS = env('MEMORY_REMEMBER_CALLERS', 20);
export const RECALLS = env('MEMORY_RECALLS', 1000);
export const RECALLERS = env('MEMORY_RECALLERS', 10);
export const BOARD_FILE = (process.env.MEMORY_BOARD_FILE ?? 'on') === 'on';
if (!['on', 'off'].includes(process.env.MEMORY_BOARD_FILE ?? 'on'))
  throw new Error(`MEMORY_BOARD_FILE must be on or off, got "${process.env.MEMORY_BOARD_FILE}"`);

// The hub's limits (docs/memory-boards.md).
export const PER_CALL = 100;
export const PER_BOARD = 2000;
const BOARDS_PER_AGENT = 100;
const SHARED_WITH = 50;
export const RECALL_LIMIT = 10;

export const BOARDS = Math.ceil(CARDS / PER_BOARD);
if (BOARDS > AGENTS * BOARDS_PER_AGENT)
  throw new Error(
    `MEMORY_CARDS=${CARDS} needs ${BOARDS} boards: more than ${AGENTS} agents may own (${BOARDS_PER_AGENT} each); raise MEMORY_AGENTS`,
  );
if (REMEMBERS + 1 > PER_BOARD)
  throw new Error(
    `MEMORY_REMEMBERS=${REMEMBERS}: the board holds its first card and these, at most ${PER_BOARD} (so at most ${PER_BOARD - 1})`,
  );
if (REMEMBER_CALLERS > SHARED_WITH + 1)
  throw new Error(
    `MEMORY_REMEMBER_CALLERS=${REMEMBER_CALLERS}: a shared board names at most ${SHARED_WITH} agents besides its owner`,
  );

export const STORES = ['sqlite', 'postgres-1', 'postgres-2'];
export const NO_BOARD_FILE = { acceptedOutputModes: ['text/plain', 'application/json'] };
