import { openDatabase } from './database.js';
import { agentStatements } from './agents.js';
import { taskReader } from './task-reads.js';
import { taskWriter } from './task-writes.js';
import { TaskCache } from './task-cache.js';
import { deliveryStatements } from './deliveries.js';
import { entryStatements } from './entries.js';
import { dueWorkStatements } from './due-work.js';
import { receiptIndex } from './receipts.js';
import { HOLD_WINDOW, type Store } from '../store.js';

/** Receipts pruned per turn of the event loop (about 30 ms of work). */
const PRUNE_SLICE = 10_000;

/**
 * The embedded store: one SQLite file in WAL mode, owned by one hub process (its caches rely
 * on that). Calls are synchronous underneath.
 */
export function openSqliteStore(file: string): Store {
  const db = openDatabase(file);
  const agents = agentStatements(db);
  const outbox = deliveryStatements(db);
  const cache = new TaskCache();
  const reads = taskReader(db, cache);
  const entries = entryStatements(db);
  const due = dueWorkStatements(db);
  const receipts = receiptIndex(db);
  const writes = taskWriter(db, cache, outbox.enqueue, entries, due, receipts);
  const eventRows = db.prepare('SELECT seq, body FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  const pruneQuotas = db.prepare('DELETE FROM quota_counters WHERE window_start < ? AND window_start != ?');
  const pruneDeliveries = db.prepare("DELETE FROM deliveries WHERE state != 'pending' AND created_at < ?");

  return {
    name: 'sqlite',
    insertAgent: async (agent, token, quotas) => agents.insertAgent(agent, token, quotas),
    getAgent: async (handle) => agents.getAgent(handle),
    findToken: async (hash) => agents.findToken(hash),
    listTokens: async (handle) => agents.listTokens(handle),
    insertToken: async (handle, token, now, replace) => agents.insertToken(handle, token, now, replace),
    revokeToken: async (handle, id, now) => agents.revokeToken(handle, id, now),
    saveChallenge: async (handle, challenge) => agents.saveChallenge(handle, challenge),
    takeChallenge: async (handle) => agents.takeChallenge(handle),
    markEndpointVerified: async (handle, endpoint, rpcUrl, now) => agents.markEndpointVerified(handle, endpoint, rpcUrl, now),
    setForwarding: async (handle, enabled, quotas) => agents.setForwarding(handle, enabled, quotas),
    createTask: async (write) => writes.create(write),
    updateTask: async (write) => writes.update(write),
    getTask: async (id, options) => reads.get(id, options),
    listTasks: async (query) => reads.list(query),
    addEntry: async (write) => writes.seal(write),
    entries: async (taskId) => entries.list(taskId),
    entryOf: async (taskId, author) => entries.of(taskId, author),
    claimDue: async (owner, now, leaseUntil, limit) => due.claim(owner, now, leaseUntil, limit),
    finishDue: async (taskId, owner) => due.finish(taskId, owner),
    nextDue: async () => due.next(),
    getReceipt: async (scope, key) => receipts.get(scope, key),
    putPushConfig: async (config) => outbox.putConfig(config),
    listPushConfigs: async (taskId) => outbox.configs(taskId),
    deletePushConfig: async (taskId, id) => outbox.deleteConfig(taskId, id),
    claimDeliveries: async (owner, now, leaseUntil, limit) => outbox.claim(owner, now, leaseUntil, limit),
    finishDelivery: async (id, owner, outcome) => outbox.finish(id, owner, outcome),
    listDeliveries: async (taskId) => outbox.list(taskId),
    loadSigningKeys: async () => outbox.keys(),
    saveSigningKey: async (key) => void outbox.saveKey(key),
    eventsAfter: async (taskId, afterSeq, limit) =>
      (eventRows.all(taskId, afterSeq, limit) as { seq: number; body: string }[]).map((r) => ({ seq: r.seq, event: JSON.parse(r.body) })),
    prune: async (before) => {
      // In slices, so a day of receipts (after an outage, say) never holds the event loop for long.
      while (receipts.prune(before, PRUNE_SLICE) === PRUNE_SLICE) await new Promise((r) => setImmediate(r));
      pruneQuotas.run(before - 86_400_000, HOLD_WINDOW); // the longest window is a day; holds are kept
      pruneDeliveries.run(before - 6 * 86_400_000); // finished deliveries stay visible for a week
    },
    close: async () => {
      db.close();
    },
  };
}
