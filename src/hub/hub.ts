import { Wakeups } from '../events/wakeups.js';
import { Identity } from '../identity/agents.js';
import { DAY, MINUTE, Quotas, type QuotaRule } from '../identity/quotas.js';
import type { Store } from '../store/store.js';
import type { Kind } from './kind.js';
import { directKind } from './kinds/direct/direct.js';
import { PushConfigs, type TargetCheck } from './push.js';
import { TaskService } from './tasks.js';
import { View } from './view.js';

export interface HubOptions {
  adminToken: string;
  /** false turns rate limits off (benchmarks, trusted single-user hubs). */
  rateLimits: boolean;
  /** Refuses push and forwarding URLs the hub may not reach (see delivery/safe-client). */
  checkTarget: TargetCheck;
  /** Called when a write queued deliveries (the outbox's poke). */
  deliveriesQueued: () => void;
  clock?: () => number;
}

/** Default limits; the seeds' figures where they give one. */
export const QUOTA_RULES: Readonly<Record<string, QuotaRule>> = {
  'direct.pair': { limit: 30, windowMs: MINUTE, what: 'tasks a minute from one agent to another' },
  'direct.inbox': { limit: 300, windowMs: MINUTE, what: 'tasks a minute into one inbox' },
  'direct.daily': { limit: 5000, windowMs: DAY, what: 'tasks a day from one agent' },
};

/** The hub's services, wired once; every door is handed this and nothing else. */
export interface Hub {
  readonly store: Pick<Store, 'name' | 'close'>;
  readonly identity: Identity;
  readonly tasks: TaskService;
  readonly wakeups: Wakeups;
}

export function createHub(store: Store, options: HubOptions): Hub {
  const clock = options.clock ?? Date.now;
  const quotas = new Quotas(QUOTA_RULES, options.rateLimits);
  const kinds = new Map<string, Kind>([['direct', directKind(quotas)]]);
  const view = new View(kinds);
  const wakeups = new Wakeups();
  return {
    store,
    wakeups,
    identity: new Identity(store, options.adminToken, clock),
    tasks: new TaskService(store, view, kinds, quotas, wakeups, new PushConfigs(store, view, options.checkTarget, clock), options.deliveriesQueued, clock),
  };
}
