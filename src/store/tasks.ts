/**
 * Tasks: their rows, histories, artifacts, one-per-agent entries and event logs. A store
 * promises that a task write (its row, messages, artifacts, events, receipt, quota charges,
 * deliveries, entry and schedule) stands whole or not at all; that an update stands only on the
 * version it read (compare-and-set), whichever process wrote last; that an entry's rule is checked
 * in the transaction that writes it; and that each committed write is announced on the store's
 * events with the task's new last sequence number; and that a read or write given a `liveToken`
 * checks it in the same statement (a request whose token is revoked meanwhile gets nothing); and that
 * no two tasks that are not terminal carry the same open key (TaskRecord.openKey), checked by the
 * database in the write itself, whichever process writes; and that works under one lock's name run one
 * at a time, whichever process runs them (underLock). The event log is the source of truth: a task's
 * events are numbered 1, 2, 3… without gaps, and `eventsAfter` reads them back in order.
 */
import type { Artifact, JsonObject, Message, StreamResponse, TaskState } from '../a2a/types.js';
import type { InboxDraft } from './inbox.js';
import type { DeliveryDraft, LazyForward } from './outbox.js';
import type { QuotaCharge, QuotaGate, Receipt } from './receipts.js';

export type Visibility = 'participants' | 'public';

/** A task's own row: everything but its history, artifacts and events. */
export interface TaskRecord {
  id: string;
  kind: string;
  contextId: string;
  /** Handle of the agent that opened the task. */
  sender?: string;
  /** Handle of the agent the task is addressed to (direct tasks). */
  target?: string;
  visibility: Visibility;
  state: TaskState;
  statusMessage?: Message;
  statusAt: number;
  createdAt: number;
  updatedAt: number;
  metadata?: JsonObject;
  messageCount: number;
  artifactCount: number;
  /** Bumped by every write; writes are compare-and-set on it. */
  version: number;
  /** Sequence number of the task's last event. */
  lastSeq: number;
  /** Where the task stands in a list by rank (TaskQuery `order: 'rank'`), set when it opens; absent: 0. */
  rank?: number;
  /**
   * Who holds the task (a worker's lease on an intent), or held it last, once the hold ended
   * with the work (who landed it). Written with the row, so a hold is taken or moved only on
   * the version its writer read: of two racing claims, one stands.
   */
  holder?: string;
  /** When the holder's hold runs (or ran) out, epoch ms; present exactly when `holder` is. */
  heldUntil?: number;
  /**
   * What the task's kind knows its work by while it is open (an intent: its space, title words and
   * footprint; see Opening.openKey). Unique among tasks that are not terminal: a create or update
   * that would give a second one the key is refused (StoreConflict 'open-key') by a unique index,
   * so of two racing creates through different processes one stands. It is kept as written; once
   * its task is terminal it holds nothing, and a new task may take it.
   */
  openKey?: string;
  /**
   * The media types its sender accepts back (SendMessage's configuration.acceptedOutputModes), as
   * it opened the task: told its target with the task (in its inbox, and when forwarded).
   */
  acceptedOutputModes?: readonly string[];
}

/** A holder and until when it holds the task: live while `until` is later than now. */
export interface Hold {
  holder: string;
  until: number;
}

/** The task's holder while its hold is live at `now`, else undefined. */
export const liveHolder = (record: TaskRecord, now: number): string | undefined =>
  record.holder !== undefined && record.heldUntil !== undefined && record.heldUntil > now ? record.holder : undefined;

export interface StoredTask {
  record: TaskRecord;
  history: Message[];
  artifacts: Artifact[];
}

export interface LoggedEvent {
  seq: number;
  event: StreamResponse;
}

/**
 * One agent's entry in a task that takes at most one per agent: a sealed contribution to a
 * review, an answer to an open call. Kept apart from the task's history, so a sealed entry
 * changes nothing anyone else can read of the task.
 */
export interface TaskEntry {
  taskId: string;
  author: string;
  id: string;
  body: JsonObject;
  createdAt: number;
}

/** An entry and the rule it is written under, checked in the write's own transaction. */
export interface EntryWrite {
  entry: TaskEntry;
  /** The task must be in this state... */
  whileState: TaskState;
  /** ...and hold fewer than this many entries, or nothing is written. */
  max: number;
}

/** A sealed entry on its own: the task row, history and events stay exactly as they are. */
export interface SealedWrite extends EntryWrite {
  receipt?: Receipt;
  quotas?: QuotaCharge[];
}

export interface TaskWrite {
  /** The row as it is after the write (version already bumped). */
  record: TaskRecord;
  /** For updates: the version the writer read. */
  expectedVersion?: number;
  newMessages: Message[];
  newArtifacts: Artifact[];
  events: StreamResponse[];
  receipt?: Receipt;
  quotas?: QuotaCharge[];
  /** Outbox rows for this write's events, stored in the same transaction. */
  deliveries?: DeliveryDraft[];
  /** A new task's copy for its target's endpoint, stored only if the target forwards (see ForwardDraft). */
  forward?: LazyForward;
  /** An entry written with the change (an open call's answer), under its rule. */
  entry?: EntryWrite;
  /** The write holds only while the task has exactly this many entries (an evaluation read them all). */
  entriesSeen?: number;
  /** Schedules work on the task at this time (replacing any earlier schedule). */
  dueAt?: number;
  /**
   * The task's scheduled work is done by the holder of its lease, named here: its row goes with
   * this write, which stands only while that holder still holds the lease (StoreConflict 'lease').
   */
  dueDone?: string;
  /** The write stands only while the token with this hash is live (TokenNotLive: nothing written). */
  liveToken?: string;
  /** With liveToken: checked before it (see QuotaGate). */
  tokenGate?: QuotaGate;
  /** Events for the task's target's inbox log, numbered and written with the change (see inbox.ts). */
  inbox?: InboxDraft;
  /** The write stands only while this agent is not paused, checked in the write itself (AgentPaused: nothing written). */
  unlessPaused?: string;
  /** The write stands only while this agent takes these media types, checked in the write itself (PartsRefused: nothing written). */
  takes?: PartsCheck;
  /** Paths the task's work wrote (Change.wrote), kept by its context and path so tasksThatWrote finds it. */
  wrote?: readonly string[];
}

/** The media types of a write's message parts, against what its target takes (its input modes, else `defaults`). */
export interface PartsCheck {
  agent: string;
  /** Each part's media type, in order; null for a part that has none to check. */
  mediaTypes: readonly (string | null)[];
  defaults: readonly string[];
}

/**
 * The first part of a PartsCheck that none of `modes` takes (a mode takes its exact type, `type/*`
 * the types under it, `*\/*` all), or -1: SQLite applies it as it writes; PostgreSQL's write says
 * the same in SQL (postgres/targets.ts, muster_take_parts).
 */
export function refusedPart(check: PartsCheck, modes: readonly string[]): number {
  const takes = (mode: string, type: string) =>
    mode === '*/*' || mode === type || (mode.endsWith('/*') && type.startsWith(mode.slice(0, -1)));
  return check.mediaTypes.findIndex((type) => type !== null && !modes.some((m) => takes(m, type)));
}

/** The task columns a list may test. */
export type TaskColumn = 'sender' | 'target' | 'visibility' | 'kind' | 'contextId' | 'holder';

/**
 * A test on one column: its value is one of `in`; or it is none of `notIn` (a column with no value
 * is none of them); or it has a value (`set: true`) or none (`set: false`).
 */
export type ColumnTest = { in: readonly string[] } | { notIn: readonly string[] } | { set: boolean };

/** One branch of a scope: every test it names holds. A branch with no tests holds for every task. */
export type TaskBranch = Readonly<Partial<Record<TaskColumn, ColumnTest>>>;

/**
 * Which tasks a list may show: those any branch holds for. Built only by the hub's view (which
 * decides visibility), executed by the store, which walks each branch by its indexes and merges
 * the walks. Branches must not overlap: a task two branches hold would be listed twice.
 */
export interface TaskScope {
  readonly anyOf: readonly TaskBranch[];
}

/**
 * The orders a list walks in. `updated` (the default): latest update first, then id downwards.
 * `rank`: highest rank first, then oldest, then id upwards (a queue, such as claimable intents).
 */
export type TaskOrder = 'updated' | 'rank';

/** The record fields each order sorts by, before the id that breaks ties. */
interface OrderKeys {
  updated: 'updatedAt';
  rank: 'rank' | 'createdAt';
}

/** Where the page before ended: the last task it showed, by its order's keys (a TaskRecord will do). */
export type TaskCursor<O extends TaskOrder = 'updated'> = Pick<TaskRecord, 'id' | OrderKeys[O]>;

/** A list's order, and the cursor of that order a page starts after. */
export type TaskOrdering =
  { order?: 'updated'; after?: TaskCursor<'updated'> } | { order: 'rank'; after?: TaskCursor<'rank'> };

/** Which tasks a list holds, how many a page takes and how much of each it reads. */
export interface TaskSelection {
  scope: TaskScope;
  states?: readonly TaskState[];
  contextId?: string;
  statusAtOrAfter?: number;
  /** Only tasks whose hold runs past this time (TaskRecord.heldUntil): live holds at `now`. */
  heldAfter?: number;
  limit: number;
  historyLength?: number;
  includeArtifacts: boolean;
}

export type TaskQuery = TaskSelection & TaskOrdering;

export interface TaskPage {
  tasks: StoredTask[];
  total: number;
  hasMore: boolean;
}

export interface GetOptions {
  historyLength?: number;
  includeArtifacts: boolean;
  /** The read answers only while the token with this hash is live (else TokenNotLive), checked in the read itself. */
  liveToken?: string;
  /** With liveToken: checked before it (see QuotaGate). */
  tokenGate?: QuotaGate;
}

/** What a create wrote beyond the write itself. */
export interface TaskCreated {
  /** The write's forward was queued: its target forwards. */
  forwarded: boolean;
}

export interface TaskStore {
  createTask(write: TaskWrite): Promise<TaskCreated>;
  updateTask(write: TaskWrite): Promise<void>;
  getTask(id: string, options: GetOptions): Promise<StoredTask | undefined>;
  listTasks(query: TaskQuery): Promise<TaskPage>;
  /**
   * Writes a sealed entry alone: StoreConflict 'entry-exists' when the author has one,
   * 'entry-closed' when the task left `whileState`, 'entry-full' at `max`.
   */
  addEntry(write: SealedWrite): Promise<void>;
  /** The id of the task that is not terminal and holds this open key (TaskRecord.openKey), if any. */
  openKeyHolder(key: string): Promise<string | undefined>;
  /**
   * The ids of the tasks of this context whose writes named `path` as written (TaskWrite.wrote),
   * latest write first, at most `limit`: one walk of the paths' index, whatever the context holds.
   */
  tasksThatWrote(contextId: string, path: string, limit: number): Promise<string[]>;
  /**
   * Runs `work` holding the lock named `key`, across every process on the database, and answers
   * what it answers. Works under one key run one at a time, each after the writes of the one
   * before it committed, so what a work reads through `tasks` stays true until it writes there:
   * a check and the write it allows are one step (a kind's twin check and its opening). PostgreSQL
   * runs the work in one transaction that takes `pg_advisory_xact_lock` first; SQLite, exclusive,
   * queues the works in its one process, where each write stands as it commits (so a work's one
   * write is its last step). A lock is a name: it guards only works that take it.
   */
  underLock<T>(key: string, work: (tasks: LockedTasks) => Promise<T>): Promise<T>;
  /** A task's entries in the order they were written. */
  entries(taskId: string): Promise<TaskEntry[]>;
  entryOf(taskId: string, author: string): Promise<TaskEntry | undefined>;
  /** An author's entries on every task, latest first, at most `limit` (what an agent contributed). */
  entriesBy(author: string, limit: number): Promise<TaskEntry[]>;
  /** The task's stored events with a sequence number above `afterSeq`, in order, at most `limit`. */
  eventsAfter(taskId: string, afterSeq: number, limit: number): Promise<LoggedEvent[]>;
  /**
   * How many tasks of the scope were created in each of `buckets` spans of `bucketMs`, the first
   * starting at `from`, oldest first: one statement that groups by created_at, walking the scope's
   * indexes over the tasks updated since `from` (a task is updated no earlier than it is created).
   */
  countCreated(scope: TaskScope, from: number, bucketMs: number, buckets: number): Promise<number[]>;
}

/** Counts by bucket number (rows of a GROUP BY) as one count per bucket, 0 where none were found. */
export const countsByBucket = (
  rows: readonly { bucket: number | string; n: number | string }[],
  buckets: number,
): number[] => {
  const counts: number[] = new Array<number>(buckets).fill(0);
  for (const row of rows) {
    const i = Number(row.bucket);
    if (i >= 0 && i < buckets) counts[i] = Number(row.n);
  }
  return counts;
};

/** What work under a lock reads and writes through (TaskStore.underLock). */
export type LockedTasks = Pick<TaskStore, 'getTask' | 'listTasks' | 'createTask'>;

/** A write's events with the sequence numbers the store gives them. */
export const loggedEvents = (write: TaskWrite): LoggedEvent[] => {
  const first = write.record.lastSeq - write.events.length + 1;
  return write.events.map((event, i) => ({ seq: first + i, event }));
};
