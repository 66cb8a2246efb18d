/**
 * The task services as the doors call them (hub.tasks), wired together: the reads
 * (task-reads.ts), the writes a caller asks for (task-writes.ts) and the ones the hub makes itself
 * (hub-writes.ts), both over one committer (task-committer.ts), and push configs
 * (task-push-configs.ts). Each is its own file with its own job; this one only builds them.
 */
import type { Wakeups } from '../events/wakeups.js';
import type { Caller } from '../identity/caller.js';
import type { Quotas } from '../identity/quotas.js';
import type { Store } from '../store/store.js';
import { Following } from './following.js';
import type { Forwards } from './forwards.js';
import { HubWrites } from './hub-writes.js';
import { KindContexts } from './kind-contexts.js';
import type { Kinds } from './kinds.js';
import type { PushConfigs } from './push.js';
import type { Spaces } from './spaces.js';
import { TaskCommitter } from './task-committer.js';
import { TaskPushConfigs } from './task-push-configs.js';
import { TaskReads } from './task-reads.js';
import { TaskWrites } from './task-writes.js';
import type { View } from './view.js';

export interface TaskServiceDeps {
  store: Store;
  view: View;
  kinds: Kinds;
  quotas: Quotas;
  wakeups: Wakeups;
  push: PushConfigs;
  spaces: Spaces;
  /** The calls a sender's change makes to a forwarded task's endpoint. */
  forwards: Pick<Forwards, 'relayed'>;
  /** Called after a write that queued deliveries, so the outbox sends them without waiting. */
  deliveriesQueued: () => void;
  /** Checks a caller's token now, when it is still to be checked (Identity.confirm). */
  confirm: (caller: Caller) => Promise<void>;
  clock: () => number;
}

export type TaskService = Pick<TaskReads, 'get' | 'list' | 'subscribe' | 'wrote' | 'ownEntries'> &
  Pick<TaskWrites, 'send' | 'cancel' | 'act'> &
  Pick<HubWrites, 'runDue' | 'fromEndpoint'> &
  Pick<TaskPushConfigs, 'setPushConfig' | 'pushConfigs' | 'pushConfig' | 'deletePushConfig' | 'deliveries'>;

export function createTaskService(deps: TaskServiceDeps): TaskService {
  const { store, view, kinds, quotas, push, clock } = deps;
  const following = new Following(store, view, deps.wakeups, kinds);
  const reads = new TaskReads({ store, view, following, quotas, clock });
  const committer = new TaskCommitter({
    store,
    push,
    forwards: deps.forwards,
    quotas,
    deliveriesQueued: deps.deliveriesQueued,
    clock,
  });
  const contexts = new KindContexts({ store, view, spaces: deps.spaces, quotas, clock });
  const writes = new TaskWrites({ kinds, view, push, reads, committer, contexts, following, confirm: deps.confirm });
  const hubWrites = new HubWrites({ store, kinds, committer, contexts, clock });
  const pushConfigs = new TaskPushConfigs({ store, view, push });
  return Object.assign(
    methods(reads, 'get', 'list', 'subscribe', 'wrote', 'ownEntries'),
    methods(writes, 'send', 'cancel', 'act'),
    methods(hubWrites, 'runDue', 'fromEndpoint'),
    methods(pushConfigs, 'setPushConfig', 'pushConfigs', 'pushConfig', 'deletePushConfig', 'deliveries'),
  );
}

/** The named methods of `service`, bound to it, to sit in one object beside other services' methods. */
function methods<S extends object, K extends keyof S>(service: S, ...names: K[]): Pick<S, K> {
  const picked = {} as Pick<S, K>;
  for (const name of names) picked[name] = (service[name] as (...args: unknown[]) => unknown).bind(service) as S[K];
  return picked;
}
