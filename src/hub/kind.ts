/**
 * The contract every way of working implements. A kind decides what a message means for its
 * tasks, which transitions are legal, what cancel does and who may see its tasks. It never
 * writes: it returns a Change, and the task service writes it with its events.
 */
import type { Artifact, JsonObject, Message, TaskState } from '../a2a/types.js';
import type { Caller } from '../identity/caller.js';
import type { EntryWrite, QuotaCharge, StoredTask, TaskEntry, TaskRecord, Visibility } from '../store/store.js';

/** Where a request came in: the hub's own base, or one agent's base. */
export type Door = { kind: 'hub' } | { kind: 'agent'; handle: string };

export interface KindContext {
  caller: Caller;
  door: Door;
  now: number;
}

/** What a new task starts as. */
export interface Opening {
  kind: string;
  /** A kind whose tasks are their own context sets the id (Task.id = Task.contextId); else one is made. */
  id?: string;
  contextId: string;
  sender?: string;
  target?: string;
  visibility: Visibility;
  state: TaskState;
  metadata?: JsonObject;
  messages: Message[];
  quotas?: QuotaCharge[];
  /** When the kind's `due` runs for this task (a deadline). */
  dueAt?: number;
}

/** What a request does to an existing task. Empty arrays and no state: history only. */
export interface Change {
  state?: TaskState;
  statusMessage?: Message;
  messages: Message[];
  artifacts: Artifact[];
  /** Merged into the task's metadata; under `muster`, key by key. */
  metadata?: JsonObject;
  quotas?: QuotaCharge[];
  /** The caller's one entry on the task (an answer, a contribution), written under its rule with the change. */
  entry?: EntryWrite;
  /**
   * An entry written alone: the task stays exactly as it was, so nobody else can tell (a sealed
   * contribution). The rest of the Change must be empty.
   */
  sealed?: EntryWrite;
}

export interface Kind {
  readonly name: string;
  /** Whether this caller may see this task at all (the view asks; nobody else should). */
  canSee(caller: Caller, task: TaskRecord): boolean;
  /** A new task from a message without taskId; undefined when the message is not for this kind. */
  open(ctx: KindContext, message: Message): Promise<Opening | undefined>;
  /** A message with the taskId of one of this kind's tasks; undefined: nothing to write, the task is answered as it stands. */
  followUp(ctx: KindContext, task: StoredTask, message: Message): Change | undefined;
  /** CancelTask on a non-terminal task. */
  cancel(ctx: KindContext, task: StoredTask, reason: string | undefined): Change;
  /** Work the kind scheduled on a task (`Opening.dueAt`) is due; undefined when nothing is left to do. */
  due?(task: StoredTask, entries: readonly TaskEntry[], now: number): Change | undefined;
  /** What the author of an entry reads of it on the task (a receipt); without it, entries are not shown back. */
  receipt?(entry: TaskEntry): JsonObject;
  /** Kind-specific actions over REST (e.g. `respond`), keyed by action name; undefined as for followUp. */
  readonly actions: Readonly<Record<string, (ctx: KindContext, task: StoredTask, body: unknown) => Change | undefined>>;
}
