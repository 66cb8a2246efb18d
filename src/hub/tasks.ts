import { isTerminal } from '../a2a/states.js';
import type { JsonObject, ListTasksParams, ListTasksResult, SendMessageParams, Task } from '../a2a/types.js';
import { camelKeys, parseWith } from '../a2a/validate.js';
import { forwardOf } from '../delivery/forward.js';
import { HubError, invalidParams } from '../errors/hub-error.js';
import type { Wakeups } from '../events/wakeups.js';
import { callerName, requireActor, uncheckedToken, type Caller } from '../identity/caller.js';
import type { Quotas } from '../identity/quotas.js';
import { QuotaExceeded, StoreConflict, type Delivery, type DueWork, type GetOptions, type LockedTasks, type PushConfig, type Store, type StoredTask, type TaskWrite } from '../store/store.js';
import { changeWrite, mergeMetadata, openingWrite } from './changes.js';
import { blockingAnswer } from './blocking.js';
import { Following, type FollowOptions, type Subscription } from './following.js';
import { PerKeyQueue } from '../store/per-key-queue.js';
import { readPages } from './pages.js';
import { doorPrint, fingerprintOf, restKey, runOnce, type Idempotency } from './idempotency.js';
import { storeRefusal } from './refusals.js';
import { createOpening } from './open-keys.js';
import type { Change, Door, Kind, KindContext, KindReads, LockedReads } from './kind.js';
import type { Kinds } from './kinds.js';
import type { Spaces } from './spaces.js';
import { checkParts } from './limits.js';
import { inboxOfChange, inboxOfOpening } from './inbox.js';
import { cursorFrom, encodePageToken } from './page-token.js';
import { configSchema, type PushConfigs } from './push.js';
import type { RenderOptions, View } from './view.js';
import type { EndpointWrite, Forwards } from './forwards.js';
import { failureBody } from './mirror.js';

const FULL = { includeArtifacts: true } as const;
const SUMMARY = { includeArtifacts: false, historyLength: 0 } as const;
/** Reads-decide-writes tried on one task before CONFLICT: races come only from other processes (see settled). */
const WRITE_ATTEMPTS = 8;
/** The most a retry waits, times the attempt, so the processes that raced do not meet again in step. */
const RETRY_JITTER_MS = 4;
/** Messages one task may hold: every change reads the task whole, so a task must stay bounded. */
export const MAX_MESSAGES = 200;
/** Writes one answer of an endpoint may take at most (each a bounded piece of it). */
const ENDPOINT_WRITES = 32;
/** History in a SendMessage answer when the caller does not say (GetTask gives it all). */
const ANSWER_HISTORY = 20;

export interface Actor {
  caller: Caller;
  door: Door;
  /** The media types a SendMessage's caller accepts in its answer (configuration.acceptedOutputModes). */
  acceptedOutputModes?: readonly string[];
  /** The hub's base URL as the caller reaches it, for links in answers. */
  hubUrl?: string;
}

export const trimHistory = (task: Task, historyLength: number | undefined): Task => {
  if (historyLength === undefined || !task.history) return task;
  const { history, ...rest } = task;
  const kept = historyLength === 0 ? [] : history.slice(-historyLength);
  return kept.length > 0 ? Object.assign(rest, { history: kept }) : rest;
};

/** The tasks service: every door creates, reads, changes and lists tasks through it. */
export class TaskService {
  /** Each task's changes in this process, one after another. */
  private readonly changing = new PerKeyQueue();
  private readonly following: Following;

  constructor(
    private readonly store: Store,
    private readonly view: View,
    private readonly kinds: Kinds,
    private readonly quotas: Quotas,
    wakeups: Wakeups,
    private readonly push: PushConfigs,
    private readonly spaces: Spaces,
    /** Called after a write that queued deliveries, so the outbox sends them without waiting. */
    private readonly deliveriesQueued: () => void,
    /** Checks a caller's token now, when it is still to be checked (Identity.confirm). */
    private readonly confirm: (caller: Caller) => Promise<void>,
    /** The calls a sender's change makes to a forwarded task's endpoint. */
    private readonly forwards: Pick<Forwards, 'relayed'>,
    private readonly clock: () => number = Date.now,
  ) {
    this.following = new Following(store, view, wakeups, kinds);
  }

  /**
   * Writes what a forwarded task's endpoint said (hub/forwards.ts): its answer as the target's
   * `respond`, so it passes every check an agent's answer passes (one the checks refuse fails
   * the task, with the refusal in words), with the forward's record and the calls it starts.
   */
  async fromEndpoint(taskId: string, decide: (task: StoredTask) => EndpointWrite | undefined): Promise<void> {
    // A write carries a bounded piece of what the endpoint said (hub/mirror.ts): decide again on the task it left, while there is more.
    for (let write = 0; write < ENDPOINT_WRITES; write++) {
      const more = await this.settled(taskId, async () => {
        const current = await this.store.getTask(taskId, FULL);
        const said = current?.record.target === undefined ? undefined : decide(current);
        if (!current || !said || (write > 0 && !said.body)) return false;
        const target: Actor = { caller: { kind: 'agent', handle: current.record.target! }, door: { kind: 'agent', handle: current.record.target! } };
        const ctx = this.context(target);
        let change: Change = { messages: [], artifacts: [] };
        if (said.body) change = await this.respondAsTarget(ctx, current, said.body);
        const news = change.state !== undefined || change.messages.length > 0 || change.artifacts.length > 0 || (change.chunks?.length ?? 0) > 0;
        if (write > 0 && !news) return false;
        if (said.forwarding) change.metadata = mergeMetadata(change.metadata, { muster: { forwarding: said.forwarding as unknown as JsonObject } });
        const extra = said.deliveries ? { deliveries: said.deliveries } : {};
        await this.commit(current, change, ctx.now, extra, target).catch((e: unknown) => {
          // A task that holds all the messages it may keeps what the endpoint says of its state and artifacts.
          if (!(e instanceof HubError && e.code === 'RATE_LIMITED' && change.messages.length > 0)) throw e;
          const { statusMessage: _dropped, ...rest } = change;
          return this.commit(current, Object.assign(rest, { messages: [] }), ctx.now, extra, target);
        });
        return news;
      });
      if (!more) return;
    }
  }

  private async respondAsTarget(ctx: KindContext, task: StoredTask, body: Record<string, unknown>): Promise<Change> {
    const respond = this.kinds.byName.get(task.record.kind)?.actions['respond'];
    const none: Change = { messages: [], artifacts: [] };
    if (!respond || isTerminal(task.record.state)) return none;
    try {
      return (await respond(ctx, task, body)) ?? none;
    } catch (e) {
      if (!(e instanceof HubError)) throw e;
      return (await respond(ctx, task, failureBody(`${task.record.target}'s own A2A endpoint answered with what the hub refuses: ${e.message}`))) ?? none;
    }
  }

  async setPushConfig(actor: Actor, raw: unknown): Promise<PushConfig> {
    const input = parseWith(configSchema, camelKeys(raw));
    this.visible(actor, await this.store.getTask(input.taskId, SUMMARY), input.taskId);
    return this.push.create(actor.caller, input.taskId, input);
  }

  async pushConfigs(actor: Actor, taskId: string): Promise<PushConfig[]> {
    this.visible(actor, await this.store.getTask(taskId, SUMMARY), taskId);
    return this.push.list(actor.caller, taskId);
  }

  async pushConfig(actor: Actor, taskId: string, id: string): Promise<PushConfig> {
    this.visible(actor, await this.store.getTask(taskId, SUMMARY), taskId);
    return this.push.get(actor.caller, taskId, id);
  }

  async deletePushConfig(actor: Actor, taskId: string, id: string): Promise<void> {
    this.visible(actor, await this.store.getTask(taskId, SUMMARY), taskId);
    await this.push.delete(actor.caller, taskId, id);
  }

  /**
   * The outbox of a task as far as it is the caller's: deliveries to their own push configs, and
   * to the target's endpoint for the target itself (the admin sees all).
   */
  async deliveries(actor: Actor, taskId: string): Promise<Delivery[]> {
    const { record } = this.visible(actor, await this.store.getTask(taskId, SUMMARY), taskId);
    const [deliveries, configs] = await Promise.all([this.store.listDeliveries(taskId), this.store.listPushConfigs(taskId)]);
    return this.view.deliveries(actor.caller, record, deliveries, configs);
  }

  /** `gone`, asked only when the send blocks, fires when the caller stops waiting for the answer. */
  async send(asked: Actor, params: SendMessageParams, gone?: () => AbortSignal): Promise<Task> {
    const { message } = params;
    const accepts = params.configuration?.acceptedOutputModes;
    const actor: Actor = accepts ? Object.assign({}, asked, { acceptedOutputModes: accepts }) : asked;
    checkParts(message.parts, 'message.parts');
    requireActor(actor.caller, 'SendMessage', 'send messages');
    const opens = message.taskId === undefined;
    const opener = opens ? this.kinds.opener(actor.door, message) : undefined;
    const worksOnOpen = opener?.worksOnOpen === true;
    const pushField = 'configuration.taskPushNotificationConfig';
    const pushInput = params.configuration?.taskPushNotificationConfig;
    if (pushInput && worksOnOpen) {
      throw invalidParams(pushField, 'cannot be set here: the hub settles this task as it opens, so there is nothing later to push', 'Leave it out: the answer is the task as it ended');
    }
    // Without an id of its own, the config is named after the message, so a retried send sets it again rather than twice.
    const push = pushInput && parseWith(configSchema, { id: `message-${message.messageId}`, ...pushInput, taskId: message.taskId ?? '(new)' }, pushField);
    // The token is checked in the task's own read or write, unless something else comes first: a
    // push config's address and write, or a kind's work as the task opens.
    if (push || worksOnOpen) await this.confirm(actor.caller);
    if (push) await this.push.check(push.url, `${pushField}.url`);
    if (push && message.taskId !== undefined) await this.push.assertSettable(actor.caller, message.taskId, push.id);
    const idem: Idempotency = { scope: `message:${callerName(actor.caller)}`, key: message.messageId, fingerprint: fingerprintOf([doorPrint(actor.door), message]) };
    const task = await this.idempotent(
      actor,
      idem,
      () =>
        opens ? this.open(actor, params, idem, opener) : this.change(actor, message.taskId!, (kind, ctx, t) => {
          if (message.contextId !== undefined && message.contextId !== t.record.contextId) {
            throw invalidParams('message.contextId', `does not match the task's context, ${t.record.contextId}`, 'Omit contextId, or send the task\'s own');
          }
          return kind.followUp(ctx, t, message);
        }, idem),
      !opens || worksOnOpen,
    );
    if (push) await this.push.create(actor.caller, task.id, push, true);
    const kind = this.kinds.byName.get((task.metadata?.['muster'] as { kind: string }).kind);
    const blocking = { task, kind, configuration: params.configuration, reread: () => this.get(actor, task.id) };
    const answer = await blockingAnswer(this.following, gone ? Object.assign(blocking, { gone }) : blocking);
    return trimHistory(answer, params.configuration?.historyLength ?? ANSWER_HISTORY);
  }

  /** Follows a task the caller may see (see Following.subscribe). */
  async subscribe(actor: Actor, id: string, options: FollowOptions): Promise<Subscription> {
    return this.following.subscribe(actor, this.visible(actor, await this.store.getTask(id, FULL), id), options);
  }

  async get(actor: Actor, id: string, historyLength?: number): Promise<Task> {
    const options = historyLength === undefined ? FULL : { includeArtifacts: true, historyLength };
    const task = this.visible(actor, await this.read(actor, id, options), id);
    return this.present(actor, task, options);
  }

  /** Reads a task for a request, checking its caller's token in the same read when it is still to be checked. */
  private async read(actor: Actor, id: string, options: GetOptions): Promise<StoredTask | undefined> {
    const token = uncheckedToken(actor.caller);
    if (!token) return this.store.getTask(id, options);
    const task = await this.store.getTask(id, Object.assign({ liveToken: token.hash }, token.gate ? { tokenGate: token.gate } : {}, options)).catch((e: unknown) => {
      throw this.refusal(e);
    });
    token.checked = true;
    return task;
  }

  async cancel(actor: Actor, id: string, reason: string | undefined, key?: string): Promise<Task> {
    const idem = key === undefined ? undefined : restKey(actor.caller, key, ['cancel', id, reason]);
    const run = () =>
      this.change(actor, id, async (kind, ctx, t) => {
        const change = await kind.cancel(ctx, t, reason); // the kind refuses callers who may not cancel, whatever the state
        if (t.record.state === 'TASK_STATE_CANCELED') return undefined; // canceling twice answers the task as it is
        if (isTerminal(t.record.state)) {
          throw new HubError('TASK_NOT_CANCELABLE', `Task ${id} is ${t.record.state} and cannot be canceled`, { meta: { currentState: t.record.state } });
        }
        return reason ? withCancelReason(change, reason) : change;
      }, idem);
    return idem ? this.idempotent(actor, idem, run) : run();
  }

  /** A kind-specific action on a task (e.g. `respond` on a direct task). */
  async act(actor: Actor, id: string, action: string, body: unknown, key?: string): Promise<Task> {
    const idem = key === undefined ? undefined : restKey(actor.caller, key, [action, id, body]);
    const run = () =>
      this.change(actor, id, (kind, ctx, t) => {
        const handler = Object.hasOwn(kind.actions, action) ? kind.actions[action] : undefined; // not `constructor` & co.
        if (!handler) throw new HubError('UNSUPPORTED_OPERATION', `${kind.name} tasks have no '${action}' action`);
        return handler(ctx, t, body);
      }, idem);
    return idem ? this.idempotent(actor, idem, run) : run();
  }

  /** A page of the tasks the caller may list at its door; with `kinds`, only tasks of those kinds. */
  async list(actor: Actor, params: ListTasksParams, kinds?: readonly string[]): Promise<ListTasksResult> {
    const pageSize = params.pageSize ?? 50;
    const scope = this.view.listScope(actor.caller, actor.door, kinds);
    if (!scope) return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
    const filters = [scope, params.status, params.contextId, params.statusTimestampAfter];
    const page = await this.store.listTasks({
      scope,
      ...(params.status ? { states: [params.status] } : {}),
      ...(params.contextId !== undefined ? { contextId: params.contextId } : {}),
      ...(params.statusTimestampAfter ? { statusAtOrAfter: Date.parse(params.statusTimestampAfter) } : {}),
      ...cursorFrom(params.pageToken, filters, 'pageToken'),
      limit: pageSize,
      ...(params.historyLength !== undefined ? { historyLength: params.historyLength } : {}),
      includeArtifacts: params.includeArtifacts ?? false,
    });
    const last = page.tasks[page.tasks.length - 1];
    const options = { includeArtifacts: params.includeArtifacts ?? false, ...(params.historyLength !== undefined ? { historyLength: params.historyLength } : {}) };
    return {
      tasks: page.tasks.map((t) => this.view.render(t, options)),
      nextPageToken: page.hasMore && last ? encodePageToken(last.record, filters) : '',
      pageSize,
      totalSize: page.total,
    };
  }

  private visible(actor: Actor, task: StoredTask | undefined, id: string): StoredTask {
    return this.view.visible(actor.caller, actor.door, task, id);
  }

  /** Opens a task of `kind`, the kind that takes this message at this door (Kinds.opener), if any. */
  private async open(actor: Actor, params: SendMessageParams, idem: Idempotency, kind: Kind | undefined): Promise<Task> {
    const ctx = this.context(actor);
    if (kind) {
      const opening = await kind.open(ctx, params.message);
      if ('twinOf' in opening) return this.view.twin(opening.twinOf, opening.note, FULL);
      // The opening event carries the task without its history: the messages are stored once, in the history.
      const { write, task } = openingWrite(opening, ctx.now, (t) => this.view.render(t, { includeArtifacts: false, historyLength: 0 }));
      let rendered: Task | undefined; // the answer, rendered once for the inbox event and the caller
      const full = () => (rendered ??= this.view.render(task, FULL));
      if (actor.acceptedOutputModes?.length) task.record.acceptedOutputModes = actor.acceptedOutputModes;
      const inbox = inboxOfOpening(task.record, full);
      if (inbox) write.inbox = inbox;
      const forward = opening.target === undefined ? undefined : forwardOf(task, opening.target);
      if (forward) write.forward = forward;
      write.receipt = Object.assign({}, idem, { result: { taskId: task.record.id } });
      const token = uncheckedToken(actor.caller);
      if (token) write.liveToken = token.hash;
      if (token?.gate) write.tokenGate = token.gate;
      const made = await createOpening(this.store, opening, write, (tasks) => this.lockedReads(tasks)).catch((e: unknown) => {
        throw this.refusal(e);
      });
      if ('twinOf' in made) return this.view.twin(made.twinOf, made.note, FULL);
      if ('holder' in made) {
        const twin = this.visible(actor, await this.read(actor, made.holder, FULL), made.holder);
        return this.view.twin(twin, opening.openKey!.twinNote(twin), FULL);
      }
      if (token) token.checked = true;
      if (made.forwarded) this.deliveriesQueued();
      return full();
    }
    throw new HubError('UNSUPPORTED_OPERATION', 'Nothing at this base takes a new task', {
      hint: "Send a direct task to an agent's base, http://HOST:PORT/agents/{handle}/, or declare work at a space's base, /spaces/{name}/; at the hub's base, a data part {\"skill\": \"review.open\", ...} posts a review",
    });
  }

  /**
   * Reads a task, asks its kind what the request changes, and writes that compare-and-set on
   * the version it read; on a lost race it reads again (a few times) rather than lose a write.
   */
  private async change(
    actor: Actor,
    id: string,
    decide: (kind: Kind, ctx: KindContext, task: StoredTask) => Change | undefined | Promise<Change | undefined>,
    idem?: Idempotency,
  ): Promise<Task> {
    requireActor(actor.caller, 'Changing a task', 'change, answer, claim or cancel a task');
    return this.settled(id, async () => {
      const current = this.visible(actor, await this.read(actor, id, FULL), id);
      const kind = this.kinds.byName.get(current.record.kind)!;
      const ctx = this.context(actor);
      const change = await decide(kind, ctx, current);
      const receipt = idem && Object.assign({}, idem, { result: { taskId: id } });
      if (!change) return this.present(actor, current);
      if (change.sealed) {
        await this.store.addEntry(Object.assign({}, change.sealed, receipt ? { receipt } : {}, change.quotas ? { quotas: change.quotas } : {}));
        return this.present(actor, current);
      }
      return this.present(actor, await this.commit(current, change, ctx.now, receipt ? { receipt } : {}, actor));
    });
  }

  /**
   * Runs work a kind scheduled on a task, once: the kind's change is written with the removal of
   * the work, compare-and-set on the task and on the entries the kind was shown. A scheduler
   * that lost the race finds nothing left to do.
   */
  async runDue(work: DueWork, owner: string): Promise<void> {
    await this.settled(work.taskId, async () => {
      const current = await this.store.getTask(work.taskId, FULL);
      const kind = current && this.kinds.byName.get(current.record.kind);
      const entries = current && kind?.due ? await this.store.entries(work.taskId) : [];
      const change = current && kind?.due?.(current, entries, this.clock());
      if (!current || !change) return this.store.finishDue(work.taskId, owner);
      await this.commit(current, change, this.clock(), { entriesSeen: entries.length, dueDone: owner });
    }).catch((e: unknown) => {
      // The lease ran out and another scheduler holds the work now: it is theirs to do.
      if (!(e instanceof StoreConflict && e.what === 'lease')) throw e;
    });
  }

  /** Writes a kind's change to a task read at some version, with its events, deliveries, wake-ups and (made `by` a caller) its target's inbox events. */
  private async commit(current: StoredTask, change: Change, now: number, extra: Partial<TaskWrite>, by?: Actor): Promise<StoredTask> {
    const { record } = current;
    // A change that writes an entry is bounded by the entry's own cap (an open call's 300
    // answers), which refuses as TASK_FULL; the message cap holds open-ended histories.
    if (!change.entry && record.messageCount + change.messages.length > MAX_MESSAGES) {
      throw new HubError('RATE_LIMITED', `Task ${record.id} holds ${record.messageCount} messages; at most ${MAX_MESSAGES} are kept per task`, {
        hint: 'Start a new task (it may share the contextId)',
      });
    }
    const { write, task } = changeWrite(current, change, now);
    Object.assign(write, extra);
    const inbox = by && inboxOfChange(by.caller, record, write, by.acceptedOutputModes);
    if (inbox) write.inbox = inbox;
    const relayed = by && (await this.forwards.relayed(current, change, write.record.lastSeq, by.caller));
    const drafts = [...(extra.deliveries ?? []), ...(relayed ? [relayed] : []), ...(await this.push.drafts(current, write.record, write.events))];
    if (drafts.length > 0) write.deliveries = drafts;
    await this.store.updateTask(write);
    if (drafts.length > 0) this.deliveriesQueued();
    return task;
  }

  /** The task as this caller reads it whole: with their own entry's receipt, when the kind shows one back. */
  private async present(actor: Actor, task: StoredTask, options: RenderOptions = FULL): Promise<Task> {
    const author = this.view.entryReader(actor.caller, task.record);
    const own = author === undefined ? undefined : await this.store.entryOf(task.record.id, author);
    return this.view.render(task, options, own);
  }

  /**
   * Runs a read-decide-write on a task after the task's earlier ones in this process (see
   * PerKeyQueue), until its compare-and-set holds: a write that lost a race (to another process)
   * reads the task again, after a short random wait, a few times, rather than fail. What the store still refuses becomes a hub error.
   */
  private settled<T>(taskId: string, attempt: () => Promise<T>): Promise<T> {
    return this.changing.run(taskId, async () => {
      for (let n = 1; ; n++) {
        try {
          return await attempt();
        } catch (e) {
          if (!(e instanceof StoreConflict && e.what === 'version' && n < WRITE_ATTEMPTS)) throw this.refusal(e);
          await new Promise((r) => setTimeout(r, Math.random() * RETRY_JITTER_MS * n));
        }
      }
    });
  }

  private refusal(e: unknown): unknown {
    return storeRefusal(e, this.quotas, this.clock());
  }

  /** Runs a write once per key (see runOnce); a retry's answer is the task as it stands now. */
  private idempotent(actor: Actor, idem: Idempotency, run: () => Promise<Task>, precheck = true): Promise<Task> {
    return runOnce(this.store, idem, run, (taskId) => this.get(actor, taskId), precheck);
  }

  private context(actor: Actor): KindContext {
    const ctx: KindContext = { caller: actor.caller, door: actor.door, now: this.clock(), reads: this.reads };
    if (actor.acceptedOutputModes) ctx.acceptedOutputModes = actor.acceptedOutputModes;
    if (actor.hubUrl) ctx.hubUrl = actor.hubUrl;
    return ctx;
  }

  /** What a kind's check under a lock reads: through the lock's own reads (Opening.underLock). */
  private lockedReads(tasks: Pick<LockedTasks, 'listTasks'>): LockedReads {
    return { spaceTasks: (space, kinds, query, max) => readPages(tasks, { ...query, scope: this.view.heldAt({ kind: 'space', name: space }, kinds) }, max) };
  }

  /** What kinds may read while they decide. */
  private readonly reads: KindReads = {
    standing: (space, caller) => this.spaces.standing(space, caller),
    spaceTasks: (...args) => this.lockedReads(this.store).spaceTasks(...args),
    requireQuota: async (charges) => {
      for (const c of charges) {
        if ((c.amount ?? 1) > 0 && (await this.store.quotaUsed(c.key, c.windowStart)) + (c.amount ?? 1) > c.limit) throw this.quotas.refusal(new QuotaExceeded(c.key, c.limit), this.clock());
      }
    },
  };
}

/** The cancel's reason joins the task's `metadata.muster`, beside what the kind's change sets there. */
const withCancelReason = (change: Change, reason: string): Change =>
  Object.assign({}, change, { metadata: mergeMetadata(change.metadata, { muster: { cancelReason: reason } }) });
