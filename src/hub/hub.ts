import { Operators } from '../identity/operators.js';
import { Wakeups } from '../events/wakeups.js';
import { Identity } from '../identity/agents.js';
import { Authentication } from '../identity/authentication.js';
import { Quotas, withLimits, type QuotaRule } from '../identity/quotas.js';
import { IDENTITY_QUOTA_RULES } from '../identity/quota-rules.js';
import type { Store } from '../store/store.js';
import type { KindModule, RestRead } from './kind-module.js';
import { kindQuotaRules, Kinds } from './kinds.js';
import { Spaces } from './spaces.js';
import { Mailboxes } from './mailbox.js';
import { PushConfigs } from './push.js';
import { checkTarget, type TargetPolicy } from '../delivery/safe-client.js';
import { EndpointControl } from '../identity/endpoint.js';
import { createTaskService, type TaskService } from './tasks.js';
import { Forwards } from './forwards.js';
import type { PushBack } from '../delivery/push-back.js';
import { Directory } from './directory.js';
import { hubSkillIds } from './hub-skills.js';
import { View } from './view.js';
import { Inbox } from './inbox.js';
import { HubStatus } from './status.js';
import { Feed } from './feed.js';

export interface HubOptions {
  /** The ways of working this hub runs (src/kinds/server.ts KIND_MODULES): the hub itself names none. */
  modules: readonly KindModule[];
  /** The admin token's hash (identity/tokens.ts hashToken). */
  adminTokenHash: string;
  /** false turns rate limits off (benchmarks, trusted single-user hubs). */
  rateLimits: boolean;
  /** Limits by rule name (the limit… settings); a rule not named keeps its declared default. */
  limits?: Readonly<Record<string, number>>;
  /** Which push and forwarding URLs the hub may reach (see delivery/safe-client). */
  targets: TargetPolicy;
  /** Where agents' own endpoints push their forwarded tasks' changes (server.ts makes it; without it they are read). */
  pushBack?: PushBack;
  /** Called when a write queued deliveries (the outbox's poke). */
  deliveriesQueued: () => void;
  /** Who may register agents: anyone (open), or only the admin and operators (admin). */
  registration?: 'open' | 'admin';
  /** Each kind's settings by kind name, as its module made them (Config.kinds); a kind not named takes its defaults. */
  kinds?: Readonly<Record<string, unknown>>;
  clock?: () => number;
}

/** Every rule the hub counts: its own (identity/quota-rules.ts) and each kind's; the limits given at start replace their defaults. */
export const quotaRulesOf = (modules: readonly KindModule[]): Readonly<Record<string, QuotaRule>> => ({
  ...IDENTITY_QUOTA_RULES,
  ...kindQuotaRules(modules),
});

/** The hub's services, wired once; every door is handed this and nothing else. */
export interface Hub {
  readonly store: Pick<Store, 'name' | 'close'>;
  /** Who a bearer token belongs to (identity/authentication.ts). */
  readonly authentication: Authentication;
  readonly identity: Identity;
  readonly tasks: TaskService;
  readonly wakeups: Wakeups;
  readonly endpoints: EndpointControl;
  /** The calls to agents' own endpoints, and their answers (the outbox sends them). */
  readonly forwards: Forwards;
  readonly mailboxes: Mailboxes;
  readonly push: PushConfigs;
  readonly spaces: Spaces;
  /** The REST reads the kinds serve (a space's intents, memory boards), which the REST door mounts. */
  readonly kindReads: readonly RestRead[];
  readonly kinds: Kinds;
  /** The directory skill at the hub's base (answers a Message, stores nothing). */
  readonly directory: Directory;
  /** Operators: people's accounts that own agents (identity/operators.ts). */
  readonly operators: Operators;
  /** Agents' live inboxes and whether they are listening (hub/inbox.ts). */
  readonly inbox: Inbox;
  /** The hub's nodes and tasks per hour, as anyone may read them (hub/status.ts). */
  readonly status: HubStatus;
  /** What anyone may see change, live: the web feed's news (hub/feed.ts). */
  readonly feed: Feed;
}

export function createHub(store: Store, options: HubOptions): Hub {
  const clock = options.clock ?? Date.now;
  const quotas = new Quotas(withLimits(quotaRulesOf(options.modules), options.limits ?? {}), options.rateLimits);
  const authentication = new Authentication(store, options.adminTokenHash, quotas, clock);
  const identity = new Identity(store, quotas, clock, hubSkillIds(options.modules), options.registration);
  const kinds = new Kinds(
    { quotas, store, requireAgent: (handle) => identity.requireAgent(handle) },
    options.modules,
    options.kinds,
  );
  const view = new View(kinds);
  const wakeups = new Wakeups(store.events);
  const spaces = new Spaces(store, identity, clock);
  const push = new PushConfigs(store, view, async (url) => void (await checkTarget(url, options.targets)), clock);
  const endpoints = new EndpointControl(store, identity, quotas, options.targets, clock);
  const inbox = new Inbox(store, view, wakeups);
  const forwards = new Forwards(store, options.pushBack, clock);
  const tasks = createTaskService({
    store,
    view,
    kinds,
    quotas,
    wakeups,
    push,
    spaces,
    forwards,
    deliveriesQueued: options.deliveriesQueued,
    confirm: (caller) => authentication.confirm(caller),
    clock,
  });
  forwards.writes = tasks;
  return {
    store,
    wakeups,
    authentication,
    identity,
    tasks,
    mailboxes: new Mailboxes(store, view),
    push,
    spaces,
    kindReads: kinds.restReads({ store, spaces, view, clock }),
    kinds,
    directory: new Directory(identity, authentication),
    endpoints,
    forwards,
    operators: new Operators(store, clock),
    inbox,
    status: new HubStatus(store, view, clock),
    feed: new Feed(store.events, tasks),
  };
}
