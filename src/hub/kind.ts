/**
 * The contract every way of working implements. A kind decides what a message means for its
 * tasks, which transitions are legal and what cancel does, and declares who may see its tasks. It never
 * writes: it returns a Change, and the task service writes it with its events.
 */
import type { Artifact, JsonObject, Message, Task, TaskState } from '../a2a/types.js';
import type { Caller } from '../identity/caller.js';
import type {
  EntryWrite,
  Hold,
  QuotaCharge,
  SpaceRecord,
  SpaceRole,
  StoredTask,
  TaskEntry,
  TaskRecord,
  TaskSelection,
  Visibility,
} from '../store/store.js';
import type { Published } from '../wire/screening.js';

/** Where a request came in: the hub's own base, one agent's base, one space's base, or a base a kind brings (KindBase: the memory base). */
export type Door =
  | { kind: 'hub' }
  | { kind: 'agent'; handle: string }
  | { kind: 'space'; name: string }
  | { kind: 'base'; name: string };

/**
 * A base a kind brings of its own: an A2A base at `/{name}/` with its own card, where the kind
 * opens its tasks (OpensAt `{door: 'base'}`). The A2A door serves it and the catalog lists it,
 * iterating the modules; a list there shows each caller the tasks it opened there (view.ts).
 */
export interface KindBase {
  /** Its name, which is also its path under the hub's URL. */
  name: string;
  /** Its Agent Card's name and description, and what the card says of the bearer token. */
  card: { name: string; description: string; bearer: string };
}

/** A caller's standing in a space: its role there, or what it is without one. */
export interface Standing {
  space: SpaceRecord;
  /** 'owner' and 'admin' may do everything; a member has its role; anyone else none. */
  role?: SpaceRole | 'owner' | 'admin';
}

/** What a kind may read while it decides (it never writes). */
export interface KindReads {
  /** The space and the caller's standing in it; undefined when there is no such space. */
  standing(space: string, caller: Caller): Promise<Standing | undefined>;
  /** The tasks of `kinds` a space's base holds (states and filters as in TaskQuery), latest update first, every page up to `max`. */
  spaceTasks(
    space: string,
    kinds: readonly string[],
    query: Omit<TaskSelection, 'scope' | 'limit'>,
    max: number,
  ): Promise<StoredTask[]>;
  /**
   * Refuses now (RATE_LIMITED) charges that would go over their limits, for a kind about to do work
   * of its own before its task is written; the charges are still made, and held, with the write.
   */
  requireQuota(charges: readonly QuotaCharge[]): Promise<void>;
}

/** What a check under a lock may read (Opening.underLock): the lock's reads, and only those. */
export type LockedReads = Pick<KindReads, 'spaceTasks'>;

export interface KindContext {
  caller: Caller;
  door: Door;
  now: number;
  reads: KindReads;
  /** The media types the caller said it accepts in answers (SendMessage's acceptedOutputModes); absent: any. */
  acceptedOutputModes?: readonly string[];
  /** The hub's base URL as the caller reaches it (for links in answers); absent outside the A2A door. */
  hubUrl?: string;
}

/** What a new task starts as. */
export interface Opening {
  kind: string;
  /** A kind that names the task in its own words, or whose tasks are their own context, sets the id; else one is made. */
  id?: string;
  contextId: string;
  sender?: string;
  target?: string;
  visibility: Visibility;
  state: TaskState;
  /** The new task's status message (one sentence saying what happened and what comes next). */
  statusMessage?: Message;
  metadata?: JsonObject;
  messages: Message[];
  /** The caller's texts the task makes public, by field: screened by the hub (hub/publishing.ts) when the task is public. */
  published?: Published;
  quotas?: QuotaCharge[];
  /** When the kind's `due` runs for this task (a deadline). */
  dueAt?: number;
  /**
   * The agent whose pause refuses this opening (a direct task's target): the store checks it in
   * the task's own write, so a pause through any node holds at once, with nothing written.
   */
  unlessPaused?: string;
  /** The agent that must take every part of `messages` (its input modes): checked in the task's own write, as unlessPaused. */
  partsFor?: string;
  /** The task's place in lists by rank, highest first (an intent's priority); absent: 0. */
  rank?: number;
  /**
   * What the kind knows this work by while the task is open (TaskRecord.openKey): when another
   * open task holds the key already (the same work, opened at the same moment through another
   * process, after this one's twin check read), nothing opens and the caller is answered that task
   * as a twin, `twinNote` saying so. The read-then-write check a kind makes cannot see such a race;
   * the store's unique key does.
   */
  openKey?: { key: string; twinNote: (twin: StoredTask) => string };
  /**
   * Opens only under the store's lock `key` (TaskStore.underLock), and only when `twinOf`, asked
   * there, finds no task the opening repeats: a twin check made in `open` reads before the write,
   * so the same work opened at that moment through another process would pass it; made under the
   * lock, it cannot. A twin found there opens nothing and is answered as `open`'s Twin is.
   */
  underLock?: { key: string; twinOf?: (reads: LockedReads) => Promise<Twin | undefined> };
  /**
   * What the task becomes at once, in the same write (work the hub itself performs, such as a
   * memory skill): the log holds the opening and then this change, so a stream shows both.
   */
  settles?: Settling;
}

/** A message that opens nothing because an existing task already is what it asks for (a twin). */
export interface Twin {
  twinOf: StoredTask;
  /** Said first in the answer's status message. */
  note: string;
}

/** What a request does to an existing task. Empty arrays and no state: history only. */
export interface Change {
  state?: TaskState;
  statusMessage?: Message;
  messages: Message[];
  artifacts: Artifact[];
  /**
   * Artifacts streamed in pieces, after `artifacts`: a chunk with `append` adds its parts to the
   * stored artifact of its id; subscribers see each chunk as it came, with its flags.
   */
  chunks?: ArtifactChunk[];
  /** Merged into the task's metadata; under `muster`, key by key. */
  metadata?: JsonObject;
  /** The agent that must take every part of `messages` (its input modes): checked in the task's own write. */
  partsFor?: string;
  /** The caller's texts the change makes public (a sealed entry's too), by field: as Opening.published. */
  published?: Published;
  quotas?: QuotaCharge[];
  /** The caller's one entry on the task (an answer, a contribution), written under its rule with the change. */
  entry?: EntryWrite;
  /**
   * An entry written alone: the task stays exactly as it was, so nobody else can tell (a sealed
   * contribution). The rest of the Change must be empty.
   */
  sealed?: EntryWrite;
  /** Sets (or moves) when the kind's `due` runs for this task: a lease's end, moved by a heartbeat. */
  dueAt?: number;
  /** Sets (or moves) the task's holder and its hold's end: a claim, a heartbeat; null: nobody holds it (a release). */
  hold?: Hold | null;
  /**
   * Paths the task's work wrote (a landing's files): kept by the task's context, so the task is
   * found by them (TaskReads.wrote: which tasks of a space wrote a path).
   */
  wrote?: readonly string[];
}

/** One piece of an artifact streamed in chunks (A2A's TaskArtifactUpdateEvent flags). */
export interface ArtifactChunk {
  /** The piece: its id names the artifact it belongs to; its parts are only this piece's. */
  artifact: Artifact;
  /** true: the parts join the stored artifact of this id; false: the piece replaces (or starts) it. */
  append: boolean;
  /** The artifact's last piece. */
  lastChunk: boolean;
}

/** A change an opening settles with at once: nothing that needs the task stored first (entries, holds). */
export type Settling = Omit<Change, 'entry' | 'sealed' | 'hold' | 'dueAt'>;

type Decision = Change | undefined | Promise<Change | undefined>;

/**
 * Who reads a kind's tasks: `everyone` (with or without a token; its tasks are stored `public`),
 * `sender-and-target` (its tasks are sent to a target agent), or the `sender` alone (its tasks
 * have no target). Tasks of the last two are stored `participants`. Beyond them, the admin reads
 * every task, and an operator every task one of its agents reads.
 */
export type Readers = 'everyone' | 'sender-and-target' | 'sender';

/**
 * Who reads a kind's tasks and at which bases they are listed, as data: the view derives from it
 * both the check of one task (GetTask and every read by id) and the scope of every list, so a list
 * at a base shows exactly the tasks GetTask finds there. The hub's own base lists every task to
 * whoever reads it. Besides it, `listedAt` names: `agent`, the bases of the task's sender and
 * target (an agent's own base lists only the tasks sent to it, its inbox); `space`, the base of the
 * space its context names; `base`, the kind's own base (KindModule.base).
 */
export interface TaskVisibility {
  readonly readers: Readers;
  readonly listedAt: readonly Exclude<Door['kind'], 'hub'>[];
}

export interface Kind {
  readonly name: string;
  /** Who reads its tasks and where they are listed (the view decides from it; nobody else should). */
  readonly visibility: TaskVisibility;
  /** A new task from a message without taskId; undefined when the message is not for this kind. */
  open(ctx: KindContext, message: Message): Promise<Opening | Twin>;
  /**
   * The kind does work of its own when it opens a task (a memory skill writes a board), so a
   * retried message must be answered from its receipt before `open` runs, not after.
   */
  readonly worksOnOpen?: boolean;
  /** A message with the taskId of one of this kind's tasks; undefined: nothing to write, the task is answered as it stands. */
  followUp(ctx: KindContext, task: StoredTask, message: Message): Decision;
  /** CancelTask on a task (the kind refuses callers who may not cancel, whatever the state). */
  cancel(ctx: KindContext, task: StoredTask, reason: string | undefined): Change | Promise<Change>;
  /** Work the kind scheduled on a task (`Opening.dueAt`) is due; undefined when nothing is left to do. */
  due?(task: StoredTask, entries: readonly TaskEntry[], now: number): Change | undefined;
  /** What the author of an entry reads of it on the task (a receipt); without it, entries are not shown back. */
  receipt?(entry: TaskEntry): JsonObject;
  /**
   * What `metadata.muster` says of the task's hold (TaskRecord.holder, heldUntil) wherever the
   * task is shown, asked only for a task with a holder; without it, a hold is not shown.
   */
  describeHold?(record: TaskRecord): JsonObject;
  /** Kind-specific actions over REST (e.g. `respond`), keyed by action name; undefined as for followUp. */
  readonly actions: Readonly<Record<string, (ctx: KindContext, task: StoredTask, body: unknown) => Decision>>;
  /**
   * How long a blocking SendMessage (A2A's returnImmediately: false) to this task waits for it to
   * end or need input, whoever could answer it; undefined or 0, and without it: the answer comes
   * at once. When the wait runs out, the answer says so (hub/blocking.ts, WaitNote).
   */
  blockingWaitMs?(task: Task): number | undefined;
}

/** The door a kind opens at, narrowed: the opening table sends it nothing else. */
export function doorOf<K extends Door['kind']>(ctx: KindContext, kind: K): Extract<Door, { kind: K }> {
  if (ctx.door.kind !== kind) throw new Error(`opened at a ${ctx.door.kind} base, expected ${kind}`);
  return ctx.door as Extract<Door, { kind: K }>;
}
