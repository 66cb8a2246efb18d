/**
 * The task writes the hub makes with no caller asking: work a kind scheduled on a task (the
 * scheduler runs it when due) and what a forwarded task's own endpoint answered (forwards.ts).
 * They go through the same committer as a caller's writes.
 */
import { isTerminal } from '../a2a/states.js';
import type { JsonObject } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import { StoreConflict, type DueWork, type Store, type StoredTask } from '../store/store.js';
import type { Actor } from './actor.js';
import { mergeMetadata } from './changes.js';
import type { EndpointWrite } from './forwards.js';
import type { Change, KindContext } from './kind.js';
import type { KindContexts } from './kind-contexts.js';
import type { Kinds } from './kinds.js';
import { failureBody } from './mirror.js';
import type { TaskCommitter } from './task-committer.js';
import { FULL } from './task-reads.js';

/** Writes one answer of an endpoint may take at most (each a bounded piece of it). */
const ENDPOINT_WRITES = 32;

export interface HubWritesDeps {
  store: Pick<Store, 'getTask' | 'entries' | 'finishDue'>;
  kinds: Kinds;
  committer: TaskCommitter;
  contexts: KindContexts;
  clock: () => number;
}

export class HubWrites {
  constructor(private readonly deps: HubWritesDeps) {}

  /**
   * Runs work a kind scheduled on a task, once: the kind's change is written with the removal of
   * the work, compare-and-set on the task and on the entries the kind was shown. A scheduler
   * that lost the race finds nothing left to do.
   */
  async runDue(work: DueWork, owner: string): Promise<void> {
    const { store, kinds, committer, clock } = this.deps;
    await committer
      .settled(work.taskId, async () => {
        const current = await store.getTask(work.taskId, FULL);
        const kind = current && kinds.byName.get(current.record.kind);
        const entries = current && kind?.due ? await store.entries(work.taskId) : [];
        const change = current && kind?.due?.(current, entries, clock());
        if (!current || !change) return store.finishDue(work.taskId, owner);
        await committer.commit(current, change, clock(), { entriesSeen: entries.length, dueDone: owner });
      })
      .catch((e: unknown) => {
        // The lease ran out and another scheduler holds the work now: it is theirs to do.
        if (!(e instanceof StoreConflict && e.what === 'lease')) throw e;
      });
  }

  /**
   * Writes what a forwarded task's endpoint said (hub/forwards.ts): its answer as the target's
   * `respond`, so it passes every check an agent's answer passes (one the checks refuse fails
   * the task, with the refusal in words), with the forward's record and the calls it starts.
   */
  async fromEndpoint(taskId: string, decide: (task: StoredTask) => EndpointWrite | undefined): Promise<void> {
    const { store, committer, contexts } = this.deps;
    // A write carries a bounded piece of what the endpoint said (hub/mirror.ts): decide again on the task it left, while there is more.
    for (let write = 0; write < ENDPOINT_WRITES; write++) {
      const more = await committer.settled(taskId, async () => {
        const current = await store.getTask(taskId, FULL);
        const said = current?.record.target === undefined ? undefined : decide(current);
        if (!current || !said || (write > 0 && !said.body)) return false;
        const target: Actor = {
          caller: { kind: 'agent', handle: current.record.target! },
          door: { kind: 'agent', handle: current.record.target! },
        };
        const ctx = contexts.of(target);
        let change: Change = { messages: [], artifacts: [] };
        if (said.body) change = await this.respondAsTarget(ctx, current, said.body);
        const news =
          change.state !== undefined ||
          change.messages.length > 0 ||
          change.artifacts.length > 0 ||
          (change.chunks?.length ?? 0) > 0;
        if (write > 0 && !news) return false;
        if (said.forwarding)
          change.metadata = mergeMetadata(change.metadata, {
            muster: { forwarding: said.forwarding as unknown as JsonObject },
          });
        const extra = said.deliveries ? { deliveries: said.deliveries } : {};
        await committer.commit(current, change, ctx.now, extra, target).catch((e: unknown) => {
          // A task that holds all the messages it may keeps what the endpoint says of its state and artifacts.
          if (!(e instanceof HubError && e.code === 'RATE_LIMITED' && change.messages.length > 0)) throw e;
          const { statusMessage: _dropped, ...rest } = change;
          return committer.commit(current, Object.assign(rest, { messages: [] }), ctx.now, extra, target);
        });
        return news;
      });
      if (!more) return;
    }
  }

  private async respondAsTarget(ctx: KindContext, task: StoredTask, body: Record<string, unknown>): Promise<Change> {
    const respond = this.deps.kinds.byName.get(task.record.kind)?.actions['respond'];
    const none: Change = { messages: [], artifacts: [] };
    if (!respond || isTerminal(task.record.state)) return none;
    try {
      return (await respond(ctx, task, body)) ?? none;
    } catch (e) {
      if (!(e instanceof HubError)) throw e;
      return (
        (await respond(
          ctx,
          task,
          failureBody(`${task.record.target}'s own A2A endpoint answered with what the hub refuses: ${e.message}`),
        )) ?? none
      );
    }
  }
}
