import { Operators } from '../identity/operators.js';
import { Wakeups } from '../events/wakeups.js';
import { Identity } from '../identity/agents.js';
import { HOUR, Quotas, type QuotaRule } from '../identity/quotas.js';
import type { Store } from '../store/store.js';
import type { KindSettings } from './kind.js';
import { kindQuotaRules, Kinds } from './kinds/index.js';
import { Spaces } from './spaces.js';
import { IntentListing } from './kinds/intent/listing.js';
import { BoardReads } from './kinds/memory/board-reads.js';
import { Mailboxes } from './mailbox.js';
import { PushConfigs } from './push.js';
import { checkTarget, type TargetPolicy } from '../delivery/safe-client.js';
import { EndpointControl } from '../identity/endpoint.js';
import { TaskService } from './tasks.js';
import { Directory } from './directory.js';
import { hubSkillIds } from './hub-skills.js';
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
  /** What the kinds are configured with (review deadlines, the intent wait). */
  kinds?: KindSettings;
  clock?: () => number;
}

/** The hub's own limits; each kind brings its own (kinds/index.ts). The seeds' figures where they give one. */
const HUB_QUOTA_RULES: Readonly<Record<string, QuotaRule>> = {
  'register.address': { limit: 60, windowMs: HOUR, what: 'agents registered an hour from one address' },
  'forwarding.change': { limit: 30, windowMs: HOUR, what: 'forwarding changes an hour for one agent' },
};

export const QUOTA_RULES: Readonly<Record<string, QuotaRule>> = Object.assign({}, HUB_QUOTA_RULES, kindQuotaRules());

/** The hub's services, wired once; every door is handed this and nothing else. */
export interface Hub {
  readonly store: Pick<Store, 'name' | 'close'>;
  readonly identity: Identity;
  readonly tasks: TaskService;
  readonly wakeups: Wakeups;
  readonly endpoints: EndpointControl;
  readonly mailboxes: Mailboxes;
  readonly push: PushConfigs;
  readonly spaces: Spaces;
  /** A space's intents as workers page them. */
  readonly intents: IntentListing;
  /** Memory boards read over REST (writes are memory skills). */
  readonly boards: BoardReads;
  readonly kinds: Kinds;
  /** The directory skill at the hub's base (answers a Message, stores nothing). */
  readonly directory: Directory;
  /** Operators: people's accounts that own agents (identity/operators.ts). */
  readonly operators: Operators;
}

export function createHub(store: Store, options: HubOptions): Hub {
  const clock = options.clock ?? Date.now;
  const quotas = new Quotas(QUOTA_RULES, options.rateLimits);
  const identity = new Identity(store, options.adminTokenHash, quotas, clock, hubSkillIds());
  const kinds = new Kinds({ quotas, settings: options.kinds ?? {}, boards: { store, requireAgent: (handle) => identity.requireAgent(handle) } });
  const view = new View(kinds);
  const wakeups = new Wakeups(store.events);
  const spaces = new Spaces(store, identity, clock);
  const push = new PushConfigs(store, view, async (url) => void (await checkTarget(url, options.targets)), clock);
  return {
    store,
    wakeups,
    identity,
    tasks: new TaskService(store, view, kinds, quotas, wakeups, push, spaces, options.deliveriesQueued, (caller) => identity.confirm(caller), clock),
    mailboxes: new Mailboxes(store, view),
    push,
    spaces,
    intents: new IntentListing(store, spaces, view),
    boards: new BoardReads(store),
    kinds,
    directory: new Directory(identity),
    endpoints: new EndpointControl(store, identity, quotas, options.targets, clock),
    operators: new Operators(store, clock),
  };
}
