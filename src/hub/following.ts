/**
 * Following a task through its event log: a subscription (the task, then every later event the
 * caller may see, live) and the blocking send's wait. Both read the log, not this process's
 * memory, so they see changes made through any node.
 */
import { isTerminal } from '../a2a/states.js';
import type { Task, TaskState } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import { endsStream, follow, followLog } from '../events/follow.js';
import type { Wakeups } from '../events/wakeups.js';
import type { LoggedEvent, Store, StoredTask, TaskRecord } from '../store/store.js';
import type { Kinds } from './kinds.js';
import type { Actor } from './actor.js';
import type { View } from './view.js';

export interface Subscription {
  /** The task as it stands when the subscription starts. */
  snapshot: Task;
  /** Sequence number of the last event the snapshot reflects. */
  snapshotSeq: number;
  /** Events older than the snapshot follow it (a resume with Last-Event-ID below the snapshot). */
  resuming: boolean;
  events: AsyncIterable<LoggedEvent>;
}

export interface FollowOptions {
  lastEventId?: number;
  signal: AbortSignal;
  refuseTerminal: boolean;
  /** The task was just opened by this caller: a kind that settles it at once streams it from its opening. */
  fromOpening?: boolean;
}

const FULL = { includeArtifacts: true } as const;

/** Where a blocking send stops waiting: the task ended, or it needs the sender. */
export const settles = (state: TaskState): boolean =>
  isTerminal(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';

async function* none(): AsyncGenerator<LoggedEvent> {}

export class Following {
  constructor(
    private readonly store: Store,
    private readonly view: View,
    private readonly wakeups: Wakeups,
    private readonly kinds: Kinds,
  ) {}

  /**
   * A task the caller may see, followed: its snapshot (and the seq of the last event it reflects),
   * then every later event the caller may see, live, until a terminal state. With `lastEventId`, a
   * reconnecting subscriber gets every event above it. A terminal task with nothing left to replay
   * is refused when `refuseTerminal`.
   */
  async subscribe(actor: Actor, current: StoredTask, options: FollowOptions): Promise<Subscription> {
    const { record } = current;
    if (options.fromOpening && options.lastEventId === undefined && this.kinds.byName.get(record.kind)?.worksOnOpen) {
      const opened = await this.fromOpening(actor, record, options.signal);
      if (opened) return opened;
    }
    const from = Math.min(options.lastEventId ?? record.lastSeq, record.lastSeq);
    const nothingLeft = isTerminal(record.state) && from >= record.lastSeq;
    if (nothingLeft && options.refuseTerminal) {
      throw new HubError(
        'UNSUPPORTED_OPERATION',
        `Task ${record.id} is ${record.state}; there is nothing more to follow`,
        {
          hint: 'Read it with GetTask',
          meta: { currentState: record.state },
        },
      );
    }
    return {
      snapshot: this.view.render(current, FULL),
      snapshotSeq: record.lastSeq,
      resuming: from < record.lastSeq,
      events: nothingLeft ? none() : this.visibleAfter(actor, record, from, options.signal),
    };
  }

  /**
   * Waits until the task ends or needs input, or `until` fires (A2A's blocking send). It follows
   * the event log, so it ends on whichever node the change is made.
   */
  async waitToSettle(taskId: string, until: AbortSignal): Promise<void> {
    const stored = await this.store.getTask(taskId, { includeArtifacts: false, historyLength: 0 });
    if (!stored || settles(stored.record.state)) return;
    for await (const { event } of follow(this.store, this.wakeups, taskId, stored.record.lastSeq, until)) {
      if ('statusUpdate' in event && settles(event.statusUpdate.status.state)) return;
    }
  }

  /**
   * A task its kind settled as it opened (a memory call), followed from its opening: the task as it
   * opened (its first logged event), then everything logged since, so a stream shows its whole
   * lifecycle. Undefined when the log does not start with the opening task.
   */
  private async fromOpening(actor: Actor, record: TaskRecord, signal: AbortSignal): Promise<Subscription | undefined> {
    const [first] = await this.store.eventsAfter(record.id, 0, 1);
    if (!first || !('task' in first.event)) return undefined;
    return {
      snapshot: first.event.task,
      snapshotSeq: first.seq,
      resuming: false,
      events: this.visibleAfter(actor, record, first.seq, signal),
    };
  }

  /** The task's logged events after `from`, live, as the caller may see them (the view's filter for this subscription). */
  private visibleAfter(actor: Actor, record: TaskRecord, from: number, signal: AbortSignal) {
    const shown = this.view.streamEvents(actor.caller, record);
    return followLog(this.store, this.wakeups, record.id, from, signal, endsStream, shown);
  }
}
