import type { Db } from './database.js';
import {
  pushChannel,
  type DeliveryDraft,
  type ForwardDraft,
  type DeliveryOutcome,
  type OutboxStore,
  type PushConfig,
} from '../store.js';
import { configFromRow, deliveryFromRow, type ConfigRow, type DeliveryRow } from '../rows.js';

/** Deliveries queued inside a task write's transaction, in plain calls (the writer is in tasks.ts). */
export function deliveryStatements(db: Db) {
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (id, task_id, channel, seq, url, headers, body, state, attempts, next_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  );
  // The forward's URL is the target's verified endpoint as its row holds it now; no row, no forward.
  const insertForward = db.prepare(
    `INSERT INTO deliveries (id, task_id, channel, seq, url, headers, body, state, attempts, next_at, created_at)
     SELECT ?, ?, ?, ?, endpoint_rpc_url, ?, ?, 'pending', 0, ?, ? FROM agents WHERE handle = ? AND forwarding = 1 AND endpoint_rpc_url IS NOT NULL`,
  );

  return {
    /** Queues a new task's forward if its target forwards; answers whether it did. */
    enqueueForward: (f: ForwardDraft, now: number): boolean =>
      insertForward.run(f.id, f.taskId, f.channel, f.seq, JSON.stringify(f.headers), f.body, now, now, f.to).changes ===
      1,
    enqueue: (drafts: readonly DeliveryDraft[], now: number) => {
      for (const d of drafts)
        insertDelivery.run(d.id, d.taskId, d.channel, d.seq, d.url, JSON.stringify(d.headers), d.body, now, now);
    },
  };
}

/** Push configs and the delivery outbox as the store's OutboxStore (the signing keys are in signing-keys.ts). */
export function outboxStore(db: Db): OutboxStore {
  const due = db.prepare(
    `SELECT * FROM deliveries d
     WHERE d.state = 'pending' AND d.next_at <= @now AND (d.lease_until IS NULL OR d.lease_until < @now)
       AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.task_id = d.task_id AND e.channel = d.channel AND e.seq < d.seq AND e.state = 'pending')
     ORDER BY d.next_at LIMIT +@limit`,
  );
  const lease = db.prepare('UPDATE deliveries SET lease_owner = ?, lease_until = ? WHERE id = ?');
  const finish = db.prepare(
    `UPDATE deliveries SET state = @state, attempts = @attempts, next_at = @nextAt, last_status = @lastStatus, last_error = @lastError,
       last_attempt_at = @lastAttemptAt, lease_owner = NULL, lease_until = NULL
     WHERE id = @id AND lease_owner = @owner`,
  );
  const byTask = db.prepare('SELECT * FROM deliveries WHERE task_id = ? ORDER BY channel, seq');
  const pending = db.prepare("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'").pluck();
  const upsertConfig = db.prepare(
    `INSERT INTO push_configs (task_id, id, owner, url, token, auth_scheme, auth_credentials, protocol, created_at)
     VALUES (@taskId, @id, @owner, @url, @token, @scheme, @credentials, @protocol, @createdAt)
     ON CONFLICT (task_id, id) DO UPDATE SET url = excluded.url, token = excluded.token, auth_scheme = excluded.auth_scheme,
       auth_credentials = excluded.auth_credentials, protocol = excluded.protocol
     WHERE push_configs.owner = excluded.owner`,
  );
  const configs = db.prepare('SELECT * FROM push_configs WHERE task_id = ? ORDER BY created_at, id');
  const othersOfOwner = db
    .prepare('SELECT COUNT(*) FROM push_configs WHERE task_id = ? AND owner = ? AND id != ?')
    .pluck();
  const deleteConfig = db.prepare('DELETE FROM push_configs WHERE task_id = ? AND id = ?');
  const cancelChannel = db.prepare(
    "UPDATE deliveries SET state = 'canceled', lease_owner = NULL, lease_until = NULL WHERE task_id = ? AND channel = ? AND state = 'pending'",
  );

  const claim = db.transaction((owner: string, now: number, leaseUntil: number, limit: number) => {
    const rows = due.all({ now, limit }) as DeliveryRow[];
    for (const r of rows) lease.run(owner, leaseUntil, r.id);
    return rows.map(deliveryFromRow);
  });
  const putConfig = db.transaction((c: PushConfig, maxPerOwner: number): 'stored' | 'taken' | 'full' => {
    if ((othersOfOwner.get(c.taskId, c.owner, c.id) as number) >= maxPerOwner) return 'full';
    const params = Object.assign({}, c, {
      token: c.token ?? null,
      scheme: c.authentication?.scheme ?? null,
      credentials: c.authentication?.credentials ?? null,
      protocol: c.protocol ?? null,
    });
    return upsertConfig.run(params).changes === 1 ? 'stored' : 'taken';
  });
  const removeConfig = db.transaction((taskId: string, id: string) => {
    const gone = deleteConfig.run(taskId, id).changes === 1;
    if (gone) cancelChannel.run(taskId, pushChannel(id));
    return gone;
  });

  return {
    claimDeliveries: async (owner: string, now: number, leaseUntil: number, limit: number) =>
      claim.immediate(owner, now, leaseUntil, limit),
    finishDelivery: async (id: string, owner: string, o: DeliveryOutcome) =>
      finish.run({ id, owner, lastStatus: null, lastError: null, ...o }).changes === 1,
    listDeliveries: async (taskId: string) => (byTask.all(taskId) as DeliveryRow[]).map(deliveryFromRow),
    pendingDeliveries: async () => pending.get() as number,
    putPushConfig: async (c: PushConfig, maxPerOwner: number) => putConfig.immediate(c, maxPerOwner),
    listPushConfigs: async (taskId: string) => (configs.all(taskId) as ConfigRow[]).map(configFromRow),
    deletePushConfig: async (taskId: string, id: string) => removeConfig.immediate(taskId, id),
  };
}
