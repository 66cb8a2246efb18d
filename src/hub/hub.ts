import { Wakeups } from '../events/wakeups.js';
import { Identity } from '../identity/agents.js';
import { DAY, HOUR, MINUTE, Quotas, type QuotaRule } from '../identity/quotas.js';
import type { Store } from '../store/store.js';
import type { Kind } from './kind.js';
import { directKind } from './kinds/direct/direct.js';
import { reviewKind } from './kinds/review/review.js';
import { DEFAULT_REVIEW_SETTINGS, type ReviewSettings } from './kinds/review/request.js';
import { callKind } from './kinds/call/call.js';
import { Mailboxes } from './mailbox.js';
import { PushConfigs } from './push.js';
import { checkTarget, type TargetPolicy } from '../delivery/safe-client.js';
import { EndpointControl } from '../identity/endpoint.js';
import { TaskService } from './tasks.js';
import { View } from './view.js';

export interface HubOptions {
  /** The admin token's hash (identity/tokens.ts hashToken). */
  adminTokenHash: string;
  /** false turns rate limits off (benchmarks, trusted single-user hubs). */
  rateLimits: boolean;
  /** Which push and forwarding URLs the hub may reach (see delivery/safe-client). */
  targets: TargetPolicy;
  /** Called when a write queued deliveries (the outbox's poke). */
  deliveriesQueued: () => void;
  review?: ReviewSettings;
  clock?: () => number;
}

/** Default limits; the seeds' figures where they give one. */
export const QUOTA_RULES: Readonly<Record<string, QuotaRule>> = {
  'direct.pair': { limit: 30, windowMs: MINUTE, what: 'tasks a minute from one agent to another' },
  'direct.inbox': { limit: 300, windowMs: MINUTE, what: 'tasks a minute into one inbox' },
  'direct.daily': { limit: 5000, windowMs: DAY, what: 'tasks a day from one agent' },
  'direct.followup': { limit: 60, windowMs: MINUTE, what: 'follow-up messages a minute from one agent to another' },
  'register.address': { limit: 60, windowMs: HOUR, what: 'agents registered an hour from one address' },
  'forwarding.change': { limit: 30, windowMs: HOUR, what: 'forwarding changes an hour for one agent' },
  'review.post': { limit: 2, windowMs: DAY, what: 'review tasks posted a day by one agent' },
  'review.open': { limit: 2, held: true, what: 'review tasks open at once for one agent' },
  'review.contribute': { limit: 3, windowMs: DAY, what: 'review contributions a day by one agent' },
  'call.answer': { limit: 10, windowMs: DAY, what: 'answers to open calls a day by one agent' },
};

/** The hub's services, wired once; every door is handed this and nothing else. */
export interface Hub {
  readonly store: Pick<Store, 'name' | 'close'>;
  readonly identity: Identity;
  readonly tasks: TaskService;
  readonly wakeups: Wakeups;
  readonly endpoints: EndpointControl;
  readonly mailboxes: Mailboxes;
  readonly push: PushConfigs;
}

export function createHub(store: Store, options: HubOptions): Hub {
  const clock = options.clock ?? Date.now;
  const quotas = new Quotas(QUOTA_RULES, options.rateLimits);
  const kinds = new Map<string, Kind>(
    [directKind(quotas), reviewKind(quotas, options.review ?? DEFAULT_REVIEW_SETTINGS), callKind(quotas)].map((k) => [k.name, k]),
  );
  const view = new View(kinds);
  const wakeups = new Wakeups(store.events);
  const identity = new Identity(store, options.adminTokenHash, quotas, clock);
  const push = new PushConfigs(store, view, async (url) => void (await checkTarget(url, options.targets)), clock);
  return {
    store,
    wakeups,
    identity,
    tasks: new TaskService(store, view, kinds, quotas, wakeups, push, options.deliveriesQueued, clock),
    mailboxes: new Mailboxes(store, view),
    push,
    endpoints: new EndpointControl(store, identity, quotas, options.targets, clock),
  };
}
