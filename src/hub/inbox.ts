/**
 * The live inbox: what is addressed to an agent, as it happens, from its inbox log (store/inbox.ts),
 * so it resumes on any node; and whether the agent is listening now, from presence leases in the
 * store. The log is written by the task writes themselves (inboxOfOpening, inboxOfChange).
 */
import { randomUUID } from 'node:crypto';
import type { Task, TaskState } from '../a2a/types.js';
import { invalidParams } from '../errors/hub-error.js';
import { followLog } from '../events/follow.js';
import type { Wakeups } from '../events/wakeups.js';
import { callerName, type Caller } from '../identity/caller.js';
import { inboxKey, type InboxDraft, type InboxEvent, type Store, type TaskRecord, type TaskWrite } from '../store/store.js';

/** The states in which a task waits on its target: the open tasks a new listener gets first. */
export const WAITING_ON_TARGET: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

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
  if (!m) throw invalidParams('Last-Event-ID', `'${lastEventId.slice(0, 40)}' is not an id this stream sent`, 'Send the id of the last event received, as it came, or no Last-Event-ID to start again');
  const after = Number(m[1]);
  return m[2] === undefined ? { replay: false, after } : { replay: true, after, through: Number(m[2]) };
}

export class Inbox {
  constructor(
    private readonly store: Store,
    private readonly wakeups: Wakeups,
  ) {}

  /**
   * Whether someone can answer the agent's tasks now, from any node: it holds a live inbox, or it
   * forwards to its verified endpoint (one read; a blocking send waits only then).
   */
  canAnswer(handle: string): Promise<boolean> {
    return this.store.answerable(handle);
  }

  /**
   * The agent's live inbox from `lastEventId` (see Cursor): the events of its open tasks first (a
   * new stream), then every event as it is logged, until `signal` aborts. A Last-Event-ID this
   * stream never sent is refused at once (INVALID_PARAMS).
   */
  async stream(handle: string, lastEventId: string | undefined, signal: AbortSignal): Promise<AsyncGenerator<InboxItem>> {
    const cursor = cursorOf(lastEventId);
    const head = await this.store.inboxHead(handle);
    // An id past the log's end was never sent: taken, it would skip the events up to it.
    if (Math.max(cursor.after, cursor.replay ? (cursor.through ?? 0) : 0) > head) {
      throw invalidParams('Last-Event-ID', `'${lastEventId!.slice(0, 40)}' is past the last event of this inbox (${head})`, 'Send the id of the last event received, as it came, or no Last-Event-ID to start again');
    }
    return this.items(handle, cursor, head, signal);
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
    const log = { exclusive: this.store.exclusive, eventsAfter: (_key: string, from: number, limit: number) => this.store.inboxAfter(handle, from, limit) };
    for await (const { seq, event } of followLog(log, this.wakeups, inboxKey(handle), after, signal, () => false)) yield { id: String(seq), event };
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

/** A new task's entry in its target's inbox: the task with its history, and what its sender accepts back. */
export function inboxOfOpening(record: TaskRecord, task: () => Task, acceptedOutputModes: readonly string[] | undefined): InboxDraft | undefined {
  if (record.target === undefined) return undefined;
  const event: InboxEvent = acceptedOutputModes?.length ? { kind: 'task', task: task(), acceptedOutputModes } : { kind: 'task', task: task() };
  return { agent: record.target, events: [event] };
}

/** What a change by someone other than its target tells the target: the messages it adds (with what their sender accepts back), and its cancel. */
export function inboxOfChange(by: Caller, before: TaskRecord, write: TaskWrite, acceptedOutputModes?: readonly string[]): InboxDraft | undefined {
  const target = before.target;
  if (target === undefined || (by.kind === 'agent' && callerName(by) === target)) return undefined;
  const accepts = acceptedOutputModes?.length ? { acceptedOutputModes } : {};
  const events: InboxEvent[] = write.newMessages.map((message) => Object.assign({ kind: 'message' as const, taskId: before.id, message }, accepts));
  if (write.record.state === 'TASK_STATE_CANCELED' && before.state !== 'TASK_STATE_CANCELED') {
    const reason = (write.record.metadata?.['muster'] as { cancelReason?: unknown } | undefined)?.cancelReason;
    events.push(typeof reason === 'string' ? { kind: 'cancel', taskId: before.id, reason } : { kind: 'cancel', taskId: before.id });
  }
  return events.length > 0 ? { agent: target, events } : undefined;
}
