/**
 * Visibility, decided here and nowhere else: which tasks a caller may see, and what a task
 * looks like to them. Every door (A2A, REST, CLI through REST, later streams, MCP and web)
 * reads tasks through this module.
 */
import type { JsonObject, StreamResponse, Task, TaskStatus } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import { callerName, requireToken, type Caller } from '../identity/caller.js';
import { FORWARD_CHANNEL } from '../delivery/forward.js';
import {
  pushChannel,
  type AgentRecord,
  type BoardBranch,
  type BoardRecord,
  type BoardScope,
  type Delivery,
  type PushConfig,
  type StoredTask,
  type TaskEntry,
  type TaskRecord,
  type TaskScope,
} from '../store/store.js';
import type { Door, Kind } from './kind.js';
import { holds, VisibilityRule } from './view-scopes.js';
import { isoTime } from '../wire/iso-time.js';

const HUB: Door = { kind: 'hub' };

/**
 * Scopes the view builds outside the kinds' lists: an agent's mailboxes (REST inbox and sent),
 * a space's tasks as its kinds read them, the tasks a worker holds. Exported for the store's
 * tests, which check the store walks each by its indexes.
 */
export const taskScopes = {
  public: (): TaskScope => ({ anyOf: [{ visibility: { in: ['public'] } }] }),
  inbox: (agent: string): TaskScope => ({ anyOf: [{ target: { in: [agent] } }] }),
  /** Tasks the agent sent to another agent: a review it posted has no target, and is listed at the hub base instead. */
  sent: (agent: string): TaskScope => ({ anyOf: [{ sender: { in: [agent] }, target: { set: true } }] }),
  /** The tasks of `kinds` in a space's context. */
  space: (name: string, kinds: readonly string[]): TaskScope => ({
    anyOf: [{ contextId: { in: [name] }, kind: { in: kinds } }],
  }),
  /** The tasks of `kinds` the agent holds or held last (an intent's worker); a list asks only for live holds. */
  heldBy: (agent: string, kinds: readonly string[]): TaskScope => ({
    anyOf: [{ holder: { in: [agent] }, kind: { in: kinds } }],
  }),
};
const scopes = taskScopes;

/** The agents whose boards a caller reads as they would: an agent itself, an operator's own agents. */
const boardReaders = (caller: Caller): readonly string[] =>
  caller.kind === 'agent' ? [caller.handle] : caller.kind === 'operator' ? caller.agents : [];

/**
 * Which memory boards a caller may read: its own, those shared with it and public ones (an
 * operator: what each of its agents may read; the admin: all; without a token: public ones).
 * The one rule: a list walks this scope in the store, and `mayReadBoard` asks it of one board.
 */
export function boardScope(caller: Caller): BoardScope {
  if (caller.kind === 'admin') return { anyOf: [{}] };
  const own = boardReaders(caller).flatMap((handle) => [
    { owner: handle },
    { visibility: 'shared' as const, sharedWith: handle },
  ]);
  return { anyOf: [{ visibility: 'public' }, ...own] };
}

/** Whether a branch of a board scope holds for the board, as the store tests it. */
const boardHolds = (branch: BoardBranch, board: BoardRecord): boolean =>
  (branch.owner === undefined || board.owner === branch.owner) &&
  (branch.visibility === undefined || board.visibility === branch.visibility) &&
  (branch.sharedWith === undefined || board.sharedWith.includes(branch.sharedWith));

export function mayReadBoard(caller: Caller, board: BoardRecord): boolean {
  return boardScope(caller).anyOf.some((branch) => boardHolds(branch, board));
}

/**
 * What a registered caller (any token) reads of an agent beyond its public card, in its extended
 * card: whether it takes no new tasks (paused), and whether its tasks also go to its own verified endpoint.
 */
export function registeredAgentFacts(
  caller: Caller,
  agent: AgentRecord,
): { handle: string; paused: boolean; forwarding: boolean } | undefined {
  if (caller.kind === 'anonymous') return undefined;
  return {
    handle: agent.handle,
    paused: agent.paused !== undefined,
    forwarding: agent.forwarding === true && agent.endpointVerifiedAt !== undefined,
  };
}

/** Who writes to a board: its owner, and the agents a shared board is shared with. */
export function mayWriteBoard(caller: Caller, board: BoardRecord): boolean {
  return (
    caller.kind === 'agent' &&
    (board.owner === caller.handle || (board.visibility === 'shared' && board.sharedWith.includes(caller.handle)))
  );
}

export interface RenderOptions {
  historyLength?: number;
  includeArtifacts: boolean;
}

/** A logged event a stream carries: the opening Task and history-only messages are carried by the snapshot. */
const onStream = (event: StreamResponse): StreamResponse | undefined =>
  'statusUpdate' in event || 'artifactUpdate' in event ? event : undefined;
const nothing = (): undefined => undefined;

/**
 * What the view reads of the hub's kinds (kinds.ts Kinds is one): who reads each one's tasks, how
 * it shows a hold and an author's receipt, and the base of its own its tasks live at.
 */
export interface DeclaredKinds {
  readonly byName: ReadonlyMap<string, Pick<Kind, 'name' | 'visibility' | 'receipt' | 'describeHold'>>;
  baseOf(kind: string): string | undefined;
}

export class View {
  /** The kinds whose tasks live at a space's base. */
  private readonly spaceKinds: ReadonlySet<string>;
  /** Who reads which tasks where, from the kinds' declarations: every check and list below asks it. */
  private readonly rule: VisibilityRule;

  constructor(private readonly kinds: DeclaredKinds) {
    this.rule = new VisibilityRule(
      [...kinds.byName.values()].map((k) => ({
        name: k.name,
        visibility: k.visibility,
        ...(kinds.baseOf(k.name) !== undefined ? { base: kinds.baseOf(k.name)! } : {}),
      })),
    );
    this.spaceKinds = new Set(this.rule.listedAt({ kind: 'space', name: '' }));
  }

  /**
   * Whether the caller may read the task: whether the hub's base, which lists every task to
   * whoever reads it, lists it to them. An operator reads every task its agents read, as they
   * see it; it never acts (caller.ts requireActor).
   */
  canSee(caller: Caller, record: TaskRecord): boolean {
    return holds(this.rule.scope(caller, HUB), record);
  }

  /** Whether this door's list shows the task to this caller (what `visible` checks, without refusing). */
  shows(caller: Caller, door: Door, record: TaskRecord): boolean {
    return holds(this.rule.scope(caller, door), record);
  }

  /**
   * The task if this caller may see it at this door, exactly when the door's list shows it to
   * them (the same scope); otherwise "not found", exactly as if it did not exist.
   */
  visible<T extends StoredTask>(caller: Caller, door: Door, task: T | undefined, id: string): T {
    if (task && this.shows(caller, door, task.record)) return task;
    const seen = task && door.kind !== 'hub' && this.canSee(caller, task.record);
    // A task the caller may read, asked for at the wrong base: say which base lists it (the
    // caller sees its `to` anyway). Any other miss is "not found", telling nothing more.
    if (seen) {
      const base = this.rule.baseOf(task.record);
      throw new HubError('TASK_NOT_FOUND', `Task ${id} is not at this base`, {
        hint: `Read it at the base /${base}`,
        meta: { taskBase: base },
      });
    }
    throw new HubError('TASK_NOT_FOUND', `Task ${id} not found`, {
      hint: 'Check the id; you only see tasks you sent or received',
    });
  }

  /** A push config is seen (listed, read, deleted) by the caller who set it, and by nobody else. */
  ownsConfig(caller: Caller, config: PushConfig): boolean {
    return config.owner === callerName(caller);
  }

  /**
   * The deliveries of a task a caller may see: those to their own push configs, and forwards to
   * the task's target for the target itself; the admin sees all.
   */
  deliveries(
    caller: Caller,
    record: TaskRecord,
    deliveries: readonly Delivery[],
    configs: readonly PushConfig[],
  ): Delivery[] {
    if (caller.kind === 'admin') return [...deliveries];
    const own = new Set(configs.filter((c) => this.ownsConfig(caller, c)).map((c) => pushChannel(c.id)));
    const isTarget =
      record.target !== undefined &&
      (caller.kind === 'agent'
        ? caller.handle === record.target
        : caller.kind === 'operator' && caller.agents.includes(record.target));
    return deliveries.filter((d) => own.has(d.channel) || (isTarget && d.channel === FORWARD_CHANNEL));
  }

  /**
   * An agent's inbox or sent list (REST): the agent's own, or, naming it (`agent`), one its
   * operator owns (the admin may name any agent). Anyone else naming an agent is refused.
   */
  mailboxScope(caller: Caller, box: 'inbox' | 'sent', agent?: string): TaskScope {
    requireToken(caller, `The ${box}`);
    const scope = (handle: string) => (box === 'inbox' ? scopes.inbox(handle) : scopes.sent(handle));
    if (agent === undefined) {
      if (caller.kind === 'agent') return scope(caller.handle);
      throw new HubError('FORBIDDEN', `The ${caller.kind} has no ${box} of its own`, {
        hint: `Name the agent: GET /api/${box}?agent=<handle> (an operator, its own agents; the admin, any). An agent's token reads its own; GET /api/tasks/{id} reads one task`,
      });
    }
    const mayRead =
      caller.kind === 'admin' ||
      (caller.kind === 'agent' && caller.handle === agent) ||
      (caller.kind === 'operator' && caller.agents.includes(agent));
    if (!mayRead)
      throw new HubError('FORBIDDEN', `Only '${agent}', its operator or the admin may read its ${box}`, {
        hint: `Send your own agent's handle, or leave agent out for your own ${box}`,
        fields: [{ field: 'agent', description: 'is not an agent you own' }],
      });
    return scope(agent);
  }

  /**
   * The tasks of `kinds` (held at spaces) that `worker` holds, for this caller: `me` is the caller,
   * which must then be an agent; naming an agent, the agent itself, its operator or the admin.
   */
  heldScope(caller: Caller, worker: string, kinds: readonly string[]): TaskScope {
    requireToken(caller, 'The intents a worker holds');
    const held = kinds.filter((k) => this.spaceKinds.has(k));
    if (worker === 'me') {
      if (caller.kind === 'agent') return scopes.heldBy(caller.handle, held);
      throw new HubError('FORBIDDEN', `The ${caller.kind} holds no intents of its own`, {
        hint: 'Name the agent: GET /api/intents?worker=<handle> (an operator, its own agents; the admin, any); an agent token reads its own with worker=me',
        fields: [{ field: 'worker', description: "me is an agent token's own handle" }],
      });
    }
    const mayRead =
      caller.kind === 'admin' ||
      (caller.kind === 'agent' && caller.handle === worker) ||
      (caller.kind === 'operator' && caller.agents.includes(worker));
    if (!mayRead)
      throw new HubError('FORBIDDEN', `Only '${worker}', its operator or the admin may list the intents it holds`, {
        hint: 'Send worker=me for your own, or the handle of an agent you own',
        fields: [{ field: 'worker', description: 'is not you or an agent you own' }],
      });
    return scopes.heldBy(worker, held);
  }

  /**
   * Which tasks a list at this door shows this caller, only of `kinds` when given (the web feed's
   * lists of reviews or calls); undefined when it shows none.
   */
  listScope(caller: Caller, door: Door, kinds?: readonly string[]): TaskScope | undefined {
    // At an agent's base, its operator lists every task the agent sent or received; another operator is refused.
    if (door.kind === 'agent' && caller.kind === 'operator' && !caller.agents.includes(door.handle)) {
      throw new HubError('FORBIDDEN', `Operator '${caller.handle}' does not own '${door.handle}'`, {
        hint: "An operator lists the tasks of its own agents, at each agent's base",
      });
    }
    return this.rule.scope(caller, door, kinds);
  }

  /**
   * The tasks a space's base holds, whoever asks (its lists are public; a kind reads them to
   * decide): those of the kinds that live at spaces, or only of `kinds`, in the space's context.
   */
  heldAt(door: Extract<Door, { kind: 'space' }>, kinds: readonly string[] = [...this.spaceKinds]): TaskScope {
    return scopes.space(
      door.name,
      kinds.filter((k) => this.spaceKinds.has(k)),
    );
  }

  /**
   * One logged event as the caller may see it on a stream, or undefined when it is not for them
   * (or not a stream event: the opening Task and history-only messages are carried by the snapshot).
   */
  streamEvent(caller: Caller, record: TaskRecord, event: StreamResponse): StreamResponse | undefined {
    return this.streamEvents(caller, record)(event);
  }

  /**
   * streamEvent for every event of one subscription: whether the caller may see the task is asked
   * of `record` alone, so it is decided once, and every subscriber who may shares one function
   * (nothing allocated per subscriber, one call target for V8 to compile per event).
   */
  streamEvents(caller: Caller, record: TaskRecord): (event: StreamResponse) => StreamResponse | undefined {
    return this.canSee(caller, record) ? onStream : nothing;
  }

  /**
   * Whose entry on this task the caller may read back: their own, and only when the task's kind
   * shows entries back to their authors (a sealed contribution's receipt). Nobody reads another's.
   */
  entryReader(caller: Caller, record: TaskRecord): string | undefined {
    return caller.kind === 'agent' && this.kinds.byName.get(record.kind)?.receipt ? caller.handle : undefined;
  }

  /**
   * The A2A Task as the caller sees it; `own` is the caller's entry (see entryReader), shown as its
   * receipt. Built field by field (no spread, no dropUndefined): every read and write answers through here.
   */
  render(task: StoredTask, options: RenderOptions, own?: TaskEntry): Task {
    const { record } = task;
    const timestamp = isoTime(record.statusAt);
    const status: TaskStatus = record.statusMessage
      ? { state: record.state, message: record.statusMessage, timestamp }
      : { state: record.state, timestamp };
    const out: Task = { id: record.id, contextId: record.contextId, status };
    if (options.includeArtifacts && task.artifacts.length > 0) out.artifacts = task.artifacts;
    const history =
      options.historyLength === undefined
        ? task.history
        : task.history.slice(Math.max(0, task.history.length - options.historyLength));
    if (history.length > 0 && options.historyLength !== 0) out.history = history;
    // The hold is the store's (the row's holder); its kind says how the task's metadata shows it.
    const held = record.holder === undefined ? undefined : this.kinds.byName.get(record.kind)?.describeHold?.(record);
    const muster: JsonObject = Object.assign({}, record.metadata?.['muster'] as JsonObject | undefined, held, {
      kind: record.kind,
    });
    if (record.sender !== undefined) muster['from'] = record.sender;
    if (record.target !== undefined) muster['to'] = record.target;
    const receipt = own && this.kinds.byName.get(record.kind)?.receipt?.(own);
    if (receipt !== undefined) muster['receipt'] = receipt;
    out.metadata = Object.assign({}, record.metadata, { muster });
    return out;
  }

  /**
   * A task shown as the answer to a message that repeats it (a twin): the task as it stands, its
   * status message saying so first, and `metadata.muster.duplicateOf` naming it.
   */
  twin(task: StoredTask, note: string, options: RenderOptions): Task {
    const out = this.render(task, options);
    const said = out.status.message?.parts.find((p) => p.text !== undefined)?.text;
    const text = said ? `${note} ${said}` : note;
    const message = Object.assign(
      {},
      out.status.message ?? { messageId: `twin-${task.record.id}`, role: 'ROLE_AGENT' as const },
      { parts: [{ text }], taskId: task.record.id, contextId: task.record.contextId },
    );
    out.status = Object.assign({}, out.status, { message });
    const muster = Object.assign({}, out.metadata!['muster'] as JsonObject, { duplicateOf: task.record.id });
    out.metadata = Object.assign({}, out.metadata, { muster });
    return out;
  }
}
