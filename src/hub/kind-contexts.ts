/**
 * What a kind is handed while it decides a task's change: who asks, when, and what it may read
 * (a space's standing and tasks, the quota left). Caller-asked writes and the hub's own writes
 * make their contexts here alike.
 */
import type { Quotas } from '../identity/quotas.js';
import { QuotaExceeded, type LockedTasks, type Store } from '../store/store.js';
import type { Actor } from './actor.js';
import type { KindContext, KindReads, LockedReads } from './kind.js';
import { readPages } from './pages.js';
import type { Spaces } from './spaces.js';
import type { View } from './view.js';

export interface KindContextsDeps {
  store: Pick<Store, 'listTasks' | 'quotaUsed'>;
  view: View;
  spaces: Spaces;
  quotas: Quotas;
  clock: () => number;
}

export class KindContexts {
  /** What kinds may read while they decide. */
  private readonly reads: KindReads;

  constructor(private readonly deps: KindContextsDeps) {
    this.reads = {
      standing: (space, caller) => deps.spaces.standing(space, caller),
      spaceTasks: (...args) => this.lockedReads(deps.store).spaceTasks(...args),
      requireQuota: async (charges) => {
        for (const c of charges) {
          if ((c.amount ?? 1) > 0 && (await deps.store.quotaUsed(c.key, c.windowStart)) + (c.amount ?? 1) > c.limit)
            throw deps.quotas.refusal(new QuotaExceeded(c.key, c.limit), deps.clock());
        }
      },
    };
  }

  /** The context of one request by `actor`, timed now. */
  of(actor: Actor): KindContext {
    const ctx: KindContext = { caller: actor.caller, door: actor.door, now: this.deps.clock(), reads: this.reads };
    if (actor.acceptedOutputModes) ctx.acceptedOutputModes = actor.acceptedOutputModes;
    if (actor.hubUrl) ctx.hubUrl = actor.hubUrl;
    return ctx;
  }

  /** What a kind's check under a lock reads: through the lock's own reads (Opening.underLock). */
  lockedReads(tasks: Pick<LockedTasks, 'listTasks'>): LockedReads {
    return {
      spaceTasks: (space, kinds, query, max) =>
        readPages(tasks, { ...query, scope: this.deps.view.heldAt({ kind: 'space', name: space }, kinds) }, max),
    };
  }
}
