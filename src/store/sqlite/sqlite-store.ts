import { dirname } from 'node:path';
import { makeFolder } from '../../files/folders.js';
import { openDatabase } from './database.js';
import { identityStatements } from './identity.js';
import { quotaStatements } from './quota-charges.js';
import { operatorStatements } from './operators.js';
import { targetReads } from './targets.js';
import { spaceStatements } from './spaces.js';
import { boardStatements } from './boards.js';
import { taskReader } from './task-reads.js';
import { taskWriter } from './tasks.js';
import { inboxStatements } from './inbox.js';
import { nodeStatements } from './nodes.js';
import { deliveryStatements } from './outbox.js';
import { signingKeyStatements } from './signing-keys.js';
import { entryStatements } from './entries.js';
import { dueWorkStatements } from './schedule.js';
import { receiptIndex } from './receipts.js';
import { holdExclusively } from './ownership.js';
import { PerKeyQueue } from '../per-key-queue.js';
import type { MigrationInputs } from '../open-key-backfill.js';
import { EventBus, HOLD_WINDOW, TokenNotLive, type CommitObserver, type Store } from '../store.js';

/** Receipts pruned per turn of the event loop (about 30 ms of work). */
const PRUNE_SLICE = 10_000;

/**
 * The embedded store: one SQLite file in WAL mode, owned by one hub process, which it enforces
 * (ownership.ts): so it is exclusive, keeps its receipt index in memory, and announces commits in
 * process. Calls are synchronous underneath.
 */
export function openSqliteStore(file: string, applied?: (versions: number[]) => void, observe?: CommitObserver, inputs?: MigrationInputs): Store {
  if (file !== ':memory:') makeFolder(dirname(file)); // the lock lives beside the file
  const release = holdExclusively(file);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(file, applied, inputs);
  } catch (e) {
    release();
    throw e;
  }
  const bus = new EventBus();
  const identity = identityStatements(db, bus);
  const operators = operatorStatements(db, bus);
  const spaces = spaceStatements(db);
  const boards = boardStatements(db);
  const outbox = deliveryStatements(db);
  const reads = taskReader(db);
  const entries = entryStatements(db);
  const due = dueWorkStatements(db);
  const receipts = receiptIndex(db);
  const tokenLive = (hash: string) => identity.findToken(hash) !== undefined;
  const inbox = inboxStatements(db);
  const writes = taskWriter(db, bus, outbox, entries, due, receipts, tokenLive, targetReads(db), inbox, observe);
  const eventRows = db.prepare('SELECT seq, body FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  const quotaUsed = db.prepare('SELECT used FROM quota_counters WHERE key = ? AND window_start = ?').pluck();
  const quotas = quotaStatements(db);
  const chargeQuotas = db.transaction(quotas.charge);
  const pruneQuotas = db.prepare('DELETE FROM quota_counters WHERE window_start < ? AND window_start != ?');
  const pruneDeliveries = db.prepare("DELETE FROM deliveries WHERE state != 'pending' AND created_at < ?");
  // The store is exclusive: a lock held in this process is held against every writer of the file.
  const locks = new PerKeyQueue();

  const store: Store = {
    name: 'sqlite',
    exclusive: true,
    events: bus,
    insertAgent: async (agent, token, quotas) => identity.insertAgent(agent, token, quotas),
    getAgent: async (handle) => identity.getAgent(handle),
    listAgents: async (query) => identity.listAgents(query),
    findToken: async (hash, gate) => (quotas.gate(gate), identity.findToken(hash)),
    listTokens: async (handle) => identity.listTokens(handle),
    insertToken: async (handle, token, now, replace) => identity.insertToken(handle, token, now, replace),
    revokeToken: async (handle, id, now) => identity.revokeToken(handle, id, now),
    saveChallenge: async (handle, challenge) => identity.saveChallenge(handle, challenge),
    takeChallenge: async (handle) => identity.takeChallenge(handle),
    markEndpointVerified: async (handle, endpoint, spoken, now) => identity.markEndpointVerified(handle, endpoint, spoken, now),
    setForwarding: async (handle, enabled, quotas) => identity.setForwarding(handle, enabled, quotas),
    updateProfile: async (handle, patch) => identity.updateProfile(handle, patch),
    searchAgents: async (query) => identity.searchAgents(query),
    adminTokenHash: async () => identity.adminTokenHash(),
    keepAdminTokenHash: async (hash) => identity.keepAdminTokenHash(hash),
    insertOperator: async (operator, token) => operators.insertOperator(operator, token),
    getOperator: async (handle) => operators.getOperator(handle),
    operatorAgents: async (handle) => operators.operatorAgents(handle),
    findOperatorToken: async (hash) => operators.findOperatorToken(hash),
    listOperatorTokens: async (handle) => operators.listOperatorTokens(handle),
    insertOperatorToken: async (handle, token, now, replace) => operators.insertOperatorToken(handle, token, now, replace),
    revokeOperatorToken: async (handle, id, now) => operators.revokeOperatorToken(handle, id, now),
    setPause: async (handle, pause) => operators.setPause(handle, pause),
    createSpace: async (space) => spaces.createSpace(space),
    getSpace: async (name) => spaces.getSpace(name),
    updateSpace: async (name, patch) => spaces.updateSpace(name, patch),
    listSpaces: async (query) => spaces.listSpaces(query),
    members: async (space) => spaces.members(space),
    memberOf: async (space, handle) => spaces.memberOf(space, handle),
    setMember: async (space, member) => spaces.setMember(space, member),
    removeMember: async (space, handle) => spaces.removeMember(space, handle),
    writeBoard: async (write) => boards.writeBoard(write),
    getBoard: async (id) => boards.getBoard(id),
    listBoards: async (scope, query) => boards.listBoards(scope, query),
    boardContents: async (id) => boards.boardContents(id),
    boardCards: async (id, ids) => boards.boardCards(id, ids),
    recall: async (scope, query) => boards.recall(scope, query),
    countBoards: async (owner) => boards.countBoards(owner),
    createTask: async (write) => writes.create(write),
    updateTask: async (write) => writes.update(write),
    getTask: async (id, options) => {
      quotas.gate(options.tokenGate);
      if (options.liveToken !== undefined && !tokenLive(options.liveToken)) throw new TokenNotLive();
      return reads.get(id, options);
    },
    listTasks: async (query) => reads.list(query),
    openKeyHolder: async (key) => reads.openKeyHolder(key),
    countCreated: async (scope, from, bucketMs, buckets) => reads.countCreated(scope, from, bucketMs, buckets),
    underLock: (key, work) => locks.run(key, () => work(store)),
    addEntry: async (write) => writes.seal(write),
    entries: async (taskId) => entries.list(taskId),
    entryOf: async (taskId, author) => entries.of(taskId, author),
    claimDue: async (owner, now, leaseUntil, limit) => due.claim(owner, now, leaseUntil, limit),
    finishDue: async (taskId, owner) => due.finish(taskId, owner),
    nextDue: async () => due.next(),
    getReceipt: async (scope, key) => receipts.get(scope, key),
    quotaUsed: async (key, windowStart) => (quotaUsed.get(key, windowStart) as number | undefined) ?? 0,
    chargeQuotas: async (charges) => chargeQuotas(charges),
    putPushConfig: async (config, maxPerOwner) => outbox.putConfig(config, maxPerOwner),
    listPushConfigs: async (taskId) => outbox.configs(taskId),
    deletePushConfig: async (taskId, id) => outbox.deleteConfig(taskId, id),
    claimDeliveries: async (owner, now, leaseUntil, limit) => outbox.claim(owner, now, leaseUntil, limit),
    finishDelivery: async (id, owner, outcome) => outbox.finish(id, owner, outcome),
    listDeliveries: async (taskId) => outbox.list(taskId),
    pendingDeliveries: async () => outbox.pending(),
    ...signingKeyStatements(db),
    ...nodeStatements(db),
    beginInboxLog: inbox.beginInboxLog,
    completeInboxLog: inbox.completeInboxLog,
    inboxHead: inbox.inboxHead,
    inboxAfter: inbox.inboxAfter,
    inboxOfTasksIn: inbox.inboxOfTasksIn,
    holdPresence: inbox.holdPresence,
    dropPresence: inbox.dropPresence,
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
      release();
    },
  };
  return store;
}
