/**
 * The one way a task write reaches the store: each task's writes in this process one after
 * another, compare-and-set on the version read and tried again when another process won the race,
 * once per idempotency key, with the store's refusals turned into the hub's errors. Every write,
 * asked by a caller or made by the hub itself, goes through here.
 */
import type { Task } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import type { Quotas } from '../identity/quotas.js';
import { PerKeyQueue } from '../store/per-key-queue.js';
import {
  StoreConflict,
  type EntryWrite,
  type LockedTasks,
  type Receipt,
  type Store,
  type StoredTask,
  type TaskWrite,
} from '../store/store.js';
import type { Actor } from './actor.js';
import { changeWrite } from './changes.js';
import type { Forwards } from './forwards.js';
import { runOnce, type Idempotency } from './idempotency.js';
import { inboxOfChange } from './inbox.js';
import type { Change, LockedReads, Opening } from './kind.js';
import { createOpening, type Created } from './open-keys.js';
import type { PushConfigs } from './push.js';
import { storeRefusal } from './refusals.js';

/** Reads-decide-writes tried on one task before CONFLICT: races come only from other processes (see settled). */
const WRITE_ATTEMPTS = 8;
/** The most a retry waits, times the attempt, so the processes that raced do not meet again in step. */
const RETRY_JITTER_MS = 4;
/** Messages one task may hold: every change reads the task whole, so a task must stay bounded. */
const MAX_MESSAGES = 200;

export interface TaskCommitterDeps {
  store: Pick<Store, 'createTask' | 'updateTask' | 'addEntry' | 'openKeyHolder' | 'underLock' | 'getReceipt'>;
  push: Pick<PushConfigs, 'drafts'>;
  /** The calls a sender's change makes to a forwarded task's endpoint. */
  forwards: Pick<Forwards, 'relayed'>;
  quotas: Quotas;
  /** Called after a write that queued deliveries, so the outbox sends them without waiting. */
  deliveriesQueued: () => void;
  clock: () => number;
}

export class TaskCommitter {
  /** Each task's changes in this process, one after another. */
  private readonly changing = new PerKeyQueue();

  constructor(private readonly deps: TaskCommitterDeps) {}

  /**
   * Runs a read-decide-write on a task after the task's earlier ones in this process (see
   * PerKeyQueue), until its compare-and-set holds: a write that lost a race (to another process)
   * reads the task again, after a short random wait, a few times, rather than fail. What the store still refuses becomes a hub error.
   */
  settled<T>(taskId: string, attempt: () => Promise<T>): Promise<T> {
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

  /** Writes a kind's change to a task read at some version, with its events, deliveries, wake-ups and (made `by` a caller) its target's inbox events. */
  async commit(
    current: StoredTask,
    change: Change,
    now: number,
    extra: Partial<TaskWrite>,
    by?: Actor,
  ): Promise<StoredTask> {
    const { record } = current;
    // A change that writes an entry is bounded by the entry's own cap (an open call's 300
    // answers), which refuses as TASK_FULL; the message cap holds open-ended histories.
    if (!change.entry && record.messageCount + change.messages.length > MAX_MESSAGES) {
      throw new HubError(
        'RATE_LIMITED',
        `Task ${record.id} holds ${record.messageCount} messages; at most ${MAX_MESSAGES} are kept per task`,
        {
          hint: 'Start a new task (it may share the contextId)',
        },
      );
    }
    const { write, task } = changeWrite(current, change, now);
    Object.assign(write, extra);
    const inbox = by && inboxOfChange(by.caller, record, write, by.acceptedOutputModes);
    if (inbox) write.inbox = inbox;
    const relayed = by && (await this.deps.forwards.relayed(current, change, write.record.lastSeq, by.caller));
    const drafts = [
      ...(extra.deliveries ?? []),
      ...(relayed ? [relayed] : []),
      ...(await this.deps.push.drafts(current, write.record, write.events)),
    ];
    if (drafts.length > 0) write.deliveries = drafts;
    await this.deps.store.updateTask(write);
    if (drafts.length > 0) this.deps.deliveriesQueued();
    return task;
  }

  /** Writes a change's sealed entry alone (Store.addEntry), with the receipt and the quota charges the change carries. */
  seal(sealed: EntryWrite, quotas: Change['quotas'], receipt: Receipt | undefined): Promise<void> {
    return this.deps.store.addEntry(Object.assign({}, sealed, receipt ? { receipt } : {}, quotas ? { quotas } : {}));
  }

  /** Creates an opening's task (see createOpening), its lock's reads made by `readsOver`; a forward it queued is sent at once. */
  create(opening: Opening, write: TaskWrite, readsOver: (tasks: LockedTasks) => LockedReads): Promise<Created> {
    return createOpening(this.deps.store, opening, write, readsOver).then(
      (made) => {
        if ('forwarded' in made && made.forwarded) this.deps.deliveriesQueued();
        return made;
      },
      (e: unknown) => {
        throw this.refusal(e);
      },
    );
  }

  /** Runs a write once per key (see runOnce); a retry's answer is `answer` of the task it wrote, as it stands now. */
  once(
    idem: Idempotency,
    run: () => Promise<Task>,
    answer: (taskId: string) => Promise<Task>,
    precheck = true,
  ): Promise<Task> {
    return runOnce(this.deps.store, idem, run, answer, precheck);
  }

  private refusal(e: unknown): unknown {
    return storeRefusal(e, this.deps.quotas, this.deps.clock());
  }
}
