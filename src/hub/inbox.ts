/**
 * The live inbox: what is addressed to an agent, as it happens, from its inbox log (store/inbox.ts),
 * so it resumes on any node; and whether the agent is listening now, from presence leases in the
 * store. The log is written by the task writes themselves (inboxOfOpening, inboxOfChange), from
 * the agent's first listen on: that listener puts the agent's open tasks in it first (openLog).
 */
import { randomUUID } from 'node:crypto';
import { TERMINAL_STATES } from '../a2a/states.js';
import { TASK_STATES, type Task, type TaskState } from '../a2a/types.js';
import { invalidParams } from '../errors/hub-error.js';
import { followLog } from '../events/follow.js';
import type { Wakeups } from '../events/wakeups.js';
import { callerName, type Caller } from '../identity/caller.js';
import {
  inboxKey,
  type InboxDraft,
  type InboxEvent,
  type InboxStore,
  type Store,
  type TaskCursor,
  type TaskEvent,
  type TaskRecord,
  type TaskWrite,
} from '../store/store.js';
import type { View } from './view.js';

/** The states in which a task waits on its target: the open tasks a new listener gets first. */
export const WAITING_ON_TARGET: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

/** The tasks a log starts with: every one not ended, so a later follow-up to one finds it in the log. */
const NOT_ENDED: readonly TaskState[] = TASK_STATES.filter((s) => !TERMINAL_STATES.has(s));

const PAGE = 100;
/** The longest a presence lease is renewed for: a node that dies leaves its agents listening no longer than this. */
const MOST_LEASE_MS = 45_000;
/** The most often a lease is renewed, whatever the heartbeat: one write a second per stream at most. */
const MIN_RENEW_MS = 1_000;

/** One item of a live inbox: an event with its SSE id, or (no event) only the id the stream has reached. */
export interface InboxItem {
  id: string;
  event?: InboxEvent;
}

/**
 * Where a stream starts, from its Last-Event-ID: none, the replay of open tasks from the start;
 * `S/H`, that replay after S through H (the head when it began); `S`, every event after S.
 */
type Cursor = { replay: true; after: number; through?: number } | { replay: false; after: number };

function cursorOf(lastEventId: string | undefined): Cursor {
  if (lastEventId === undefined || lastEventId === '') return { replay: true, after: 0 };
  const m = /^(\d{1,15})(?:\/(\d{1,15}))?$/.exec(lastEventId.trim());
  if (!m)
    throw invalidParams(
      'Last-Event-ID',
      `'${lastEventId.slice(0, 40)}' is not an id this stream sent`,
      'Send the id of the last event received, as it came, or no Last-Event-ID to start again',
    );
  const after = Number(m[1]);
  return m[2] === undefined ? { replay: false, after } : { replay: true, after, through: Number(m[2]) };
}

export class Inbox {
  /** Agents whose log this process has seen complete (a log stays complete). */
  private readonly complete = new Set<string>();

  constructor(
    private readonly store: InboxStore & Pick<Store, 'listTasks' | 'exclusive'>,
    private readonly view: View,
    private readonly wakeups: Wakeups,
  ) {}

  /**
   * The agent's live inbox from `lastEventId` (see Cursor): the events of its open tasks first (a
   * new stream), then every event as it is logged, until `signal` aborts. A Last-Event-ID this
   * stream never sent is refused at once (INVALID_PARAMS).
   */
  async stream(
    handle: string,
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<AsyncGenerator<InboxItem>> {
    const cursor = cursorOf(lastEventId);
    await this.openLog(handle);
    const head = await this.store.inboxHead(handle);
    // An id past the log's end was never sent: taken, it would skip the events up to it.
    if (Math.max(cursor.after, cursor.replay ? (cursor.through ?? 0) : 0) > head) {
      throw invalidParams(
        'Last-Event-ID',
        `'${lastEventId!.slice(0, 40)}' is past the last event of this inbox (${head})`,
        'Send the id of the last event received, as it came, or no Last-Event-ID to start again',
      );
    }
    return this.items(handle, cursor, head, signal);
  }

  /**
   * Makes sure the agent's log is kept and complete: on its first listen, begins it and adds its
   * tasks not ended, read (in an order their changes do not move) once every write that may have
   * logged nothing has ended (beginInboxLog).
   */
  private async openLog(handle: string): Promise<void> {
    if (this.complete.has(handle)) return;
    if (!(await this.store.beginInboxLog(handle)))
      await this.store.completeInboxLog(handle, await this.notEnded(handle));
    this.complete.add(handle);
  }

  /** The agent's tasks not ended, as the `task` events of its inbox: each with its history, as it stands. */
  private async notEnded(handle: string): Promise<TaskEvent[]> {
    const scope = this.view.mailboxScope({ kind: 'agent', handle }, 'inbox');
    const events: TaskEvent[] = [];
    let after: TaskCursor<'rank'> | undefined;
    for (;;) {
      const page = await this.store.listTasks({
        scope,
        states: NOT_ENDED,
        order: 'rank',
        ...(after ? { after } : {}),
        limit: PAGE,
        includeArtifacts: true,
      });
      for (const task of page.tasks)
        events.push(taskEvent(task.record, this.view.render(task, { includeArtifacts: true })));
      if (!page.hasMore) return events;
      after = page.tasks[page.tasks.length - 1]!.record;
    }
  }

  private async *items(handle: string, cursor: Cursor, head: number, signal: AbortSignal): AsyncGenerator<InboxItem> {
    let after = cursor.after;
    if (cursor.replay) {
      const through = cursor.through ?? head;
      for (;;) {
        const page = await this.store.inboxOfTasksIn(handle, after, through, WAITING_ON_TARGET, PAGE);
        for (const { seq, event } of page) yield { id: `${seq}/${through}`, event };
        if (page.length < PAGE) break;
        after = page[page.length - 1]!.seq;
      }
      after = through;
      yield { id: String(through) }; // the replay is done: a resume from here takes every later event
    }
    const log = {
      exclusive: this.store.exclusive,
      eventsAfter: (_key: string, from: number, limit: number) => this.store.inboxAfter(handle, from, limit),
    };
    for await (const { seq, event } of followLog(log, this.wakeups, inboxKey(handle), after, signal, () => false))
      yield { id: String(seq), event };
  }

  /**
   * Marks the agent as listening until `release`: a lease renewed every `everyMs` (capped so a
   * dead node's lease runs out within MOST_LEASE_MS).
   */
  async listen(handle: string, everyMs: number): Promise<{ release(): Promise<void> }> {
    const holder = randomUUID();
    const every = Math.max(MIN_RENEW_MS, Math.min(everyMs, MOST_LEASE_MS / 3));
    const ttl = Math.min(every * 3, MOST_LEASE_MS);
    await this.store.holdPresence(handle, holder, ttl);
    const timer = setInterval(() => void this.store.holdPresence(handle, holder, ttl).catch(() => {}), every); // a missed renewal is made up by the next
    timer.unref();
    return {
      release: async () => {
        clearInterval(timer);
        await this.store.dropPresence(handle, holder).catch(() => {}); // else the lease runs out by itself
      },
    };
  }
}

/** A task's entry in its target's inbox: the task with its history, and what its sender accepts back. */
function taskEvent(record: TaskRecord, task: Task): TaskEvent {
  const accepts = record.acceptedOutputModes;
  return accepts?.length ? { kind: 'task', task, acceptedOutputModes: accepts } : { kind: 'task', task };
}

/** A new task's entry in its target's inbox. */
export function inboxOfOpening(record: TaskRecord, task: () => Task): InboxDraft | undefined {
  return record.target === undefined ? undefined : { agent: record.target, events: [taskEvent(record, task())] };
}

/** What a change by someone other than its target tells the target: the messages it adds (with what their sender accepts back), and its cancel. */
export function inboxOfChange(
  by: Caller,
  before: TaskRecord,
  write: TaskWrite,
  acceptedOutputModes?: readonly string[],
): InboxDraft | undefined {
  const target = before.target;
  if (target === undefined || (by.kind === 'agent' && callerName(by) === target)) return undefined;
  const accepts = acceptedOutputModes?.length ? { acceptedOutputModes } : {};
  const events: InboxEvent[] = write.newMessages.map((message) =>
    Object.assign({ kind: 'message' as const, taskId: before.id, message }, accepts),
  );
  if (write.record.state === 'TASK_STATE_CANCELED' && before.state !== 'TASK_STATE_CANCELED') {
    const reason = (write.record.metadata?.['muster'] as { cancelReason?: unknown } | undefined)?.cancelReason;
    events.push(
      typeof reason === 'string'
        ? { kind: 'cancel', taskId: before.id, reason }
        : { kind: 'cancel', taskId: before.id },
    );
  }
  return events.length > 0 ? { agent: target, events } : undefined;
}
