import { LRUCache } from 'lru-cache';
import type { PushConfig } from '../outbox.js';
import type {
  AgentRecord,
  EntryWrite,
  GetOptions,
  LockedTasks,
  QuotaGate,
  Store,
  TaskEntry,
  TokenRecord,
} from '../store.js';
import { TaskCache } from './task-cache.js';
import { TaskLists } from './task-lists.js';

/** Live tokens and agent records kept at most; the least recently used go first. */
const IDENTITY_CAPACITY = 10_000;
/** Tasks whose push configs and entries are kept, as many as tasks in the task cache. */
const TASK_LISTS_CAPACITY = 10_000;

/** An entry as a read from the database gives it back: its body a copy through JSON. */
const asRead = ({ entry }: EntryWrite): TaskEntry =>
  Object.assign({}, entry, { body: JSON.parse(JSON.stringify(entry.body)) });

/**
 * The one caching layer: recently read tasks, their push configs and entries, live tokens and
 * agent records, kept in step with every write made through it. It is correct only when nothing
 * else writes to the database, so it is used only over a store that says it is exclusive (SQLite,
 * which enforces it); any other store is returned as it is and every read goes to the database.
 */
export function cached(store: Store): Store {
  if (!store.exclusive) return store;
  const tasks = new TaskCache();
  const tokens = new LRUCache<string, TokenRecord>({ max: IDENTITY_CAPACITY });
  const agents = new LRUCache<string, AgentRecord>({ max: IDENTITY_CAPACITY });
  // Bumped by every committed task write: a read that saw one land while it was out is not remembered.
  let writes = 0;
  const remembering = <T>(write: Promise<T>, apply: () => void): Promise<T> =>
    write.then((result) => {
      writes++;
      apply();
      return result;
    });
  const rememberAgent = (agent: AgentRecord) => (agents.set(agent.handle, agent), agent);
  // Read on a miss, each is an autocommit read of its own (a WAL read lock taken and dropped):
  // every task write drafts deliveries for the task's push configs, and every due review reads its
  // entries. A task opens with no push config, and with the entry its opening wrote, if any.
  const pushConfigs = new TaskLists<PushConfig>(TASK_LISTS_CAPACITY);
  const entries = new TaskLists<TaskEntry>(TASK_LISTS_CAPACITY);

  const layer: Store = Object.assign(Object.create(store) as Store, {
    // The lock's work reads and writes through this layer too, so the cache learns of its writes.
    underLock: <T>(key: string, work: (tasks: LockedTasks) => Promise<T>) => store.underLock(key, () => work(layer)),
    getTask: async (id: string, options: GetOptions) => {
      if (options.liveToken !== undefined) return store.getTask(id, options); // the check is the store's
      const hit = tasks.get(id, options);
      if (hit) return hit;
      const seen = writes;
      const full = await store.getTask(id, { includeArtifacts: true });
      if (!full) return undefined;
      if (seen === writes) tasks.remember(full);
      return TaskCache.shape(full, options);
    },
    // Attached before anyone awaits the write, so the cache learns of a commit before its writer answers.
    createTask: (write: Parameters<Store['createTask']>[0]) =>
      remembering(store.createTask(write), () => {
        tasks.committed('create', write);
        pushConfigs.created(write.record.id, []);
        // Entries are read for a task's due work only: other tasks would only push those out.
        if (write.dueAt !== undefined || write.entry)
          entries.created(write.record.id, write.entry ? [asRead(write.entry)] : []);
      }),
    updateTask: (write: Parameters<Store['updateTask']>[0]) => {
      const committed = remembering(store.updateTask(write), () => tasks.committed('update', write));
      return write.entry ? entries.appends(write.record.id, asRead(write.entry), committed) : committed;
    },
    addEntry: (write: Parameters<Store['addEntry']>[0]) =>
      entries.appends(write.entry.taskId, asRead(write), store.addEntry(write)),
    entries: (taskId: string) => entries.get(taskId, () => store.entries(taskId)),
    listPushConfigs: (taskId: string) => pushConfigs.get(taskId, () => store.listPushConfigs(taskId)),
    putPushConfig: (config: PushConfig, maxPerOwner: number) =>
      pushConfigs.rewrites(config.taskId, () => store.putPushConfig(config, maxPerOwner)),
    deletePushConfig: (taskId: string, id: string) =>
      pushConfigs.rewrites(taskId, () => store.deletePushConfig(taskId, id)),
    findToken: async (hash: string, gate?: QuotaGate) => {
      if (gate?.length) return store.findToken(hash, gate); // the gate is counted in the database
      const hit = tokens.get(hash);
      if (hit) return hit;
      const found = await store.findToken(hash);
      if (found) tokens.set(hash, found);
      return found;
    },
    // Every token write clears the live tokens, so a revoked token is refused at once.
    insertToken: (...args: Parameters<Store['insertToken']>) => {
      tokens.clear();
      return store.insertToken(...args);
    },
    revokeToken: (...args: Parameters<Store['revokeToken']>) => {
      tokens.clear();
      return store.revokeToken(...args);
    },
    getAgent: async (handle: string) => {
      const hit = agents.get(handle);
      if (hit) return hit;
      const found = await store.getAgent(handle);
      return found && rememberAgent(found);
    },
    markEndpointVerified: async (...args: Parameters<Store['markEndpointVerified']>) =>
      rememberAgent(await store.markEndpointVerified(...args)),
    setForwarding: async (...args: Parameters<Store['setForwarding']>) =>
      rememberAgent(await store.setForwarding(...args)),
    setPause: async (...args: Parameters<Store['setPause']>) => {
      const updated = await store.setPause(...args);
      return updated && rememberAgent(updated);
    },
    updateProfile: async (...args: Parameters<Store['updateProfile']>) => {
      const updated = await store.updateProfile(...args);
      return updated && rememberAgent(updated);
    },
  });
  return layer;
}
