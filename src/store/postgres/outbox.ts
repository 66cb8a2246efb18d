/**
 * Push configs and the delivery outbox (the signing keys are in signing-keys.ts). Deliveries are
 * claimed with FOR UPDATE SKIP LOCKED and a lease naming its holder, so processes sharing the
 * outbox never take one delivery twice; only the holder records an attempt.
 */
import {
  pushChannel,
  type DeliveryDraft,
  type ForwardDraft,
  type DeliveryOutcome,
  type OutboxStore,
  type PushConfig,
} from '../store.js';
import type { Db, Statement } from './database.js';
import { configFromRow, deliveryFromRow, type ConfigRow, type DeliveryRow } from '../rows.js';

const DELIVERY_COLUMNS =
  'id, task_id, channel, seq, url, headers, body, state, attempts, next_at, last_status, last_error, last_attempt_at, created_at';

/** Adds a task write's outbox rows (one multi-row insert), due at once, written once `anchor` has its row. */
export function enqueueDeliveries(
  s: Statement,
  drafts: readonly DeliveryDraft[] | undefined,
  now: number,
  anchor: string,
): void {
  if (!drafts?.length) return;
  const column = <T>(pick: (d: DeliveryDraft) => T, type: string) => s.param(drafts.map(pick), type);
  const at = s.param(now, 'int8');
  s.with(
    'deliveries',
    `INSERT INTO deliveries (id, task_id, channel, seq, url, headers, body, state, attempts, next_at, created_at)
     SELECT d.id, d.task_id, d.channel, d.seq, d.url, d.headers, d.body, 'pending', 0, ${at}, ${at}
     FROM ${anchor}, unnest(${column((d) => d.id, 'text[]')}, ${column((d) => d.taskId, 'text[]')}, ${column((d) => d.channel, 'text[]')},
       ${column((d) => d.seq, 'int[]')}, ${column((d) => d.url, 'text[]')}, ${column((d) => JSON.stringify(d.headers), 'text[]')},
       ${column((d) => d.body, 'text[]')}) AS d(id, task_id, channel, seq, url, headers, body)`,
  );
}

/**
 * Adds `forward`: a new task's copy for its target's endpoint, inserted only if the target's row
 * says it forwards, to the URL that row holds. The row is read FOR SHARE: a switch of forwarding
 * committed meanwhile is re-read (READ COMMITTED), and one in flight waits for this write (see
 * identity.ts setForwarding). Answers the CTE's name (its count says whether).
 */
export function enqueueForward(
  s: Statement,
  f: ForwardDraft | undefined,
  now: number,
  anchor: string,
): string | undefined {
  if (!f) return undefined;
  const at = s.param(now, 'int8');
  s.with(
    'forward',
    `INSERT INTO deliveries (id, task_id, channel, seq, url, headers, body, state, attempts, next_at, created_at)
     SELECT ${s.param(f.id, 'text')}, ${s.param(f.taskId, 'text')}, ${s.param(f.channel, 'text')}, ${s.param(f.seq, 'int')}, a.endpoint_rpc_url,
       ${s.param(JSON.stringify(f.headers), 'text')}, ${s.param(f.body, 'text')}, 'pending', 0, ${at}, ${at}
     FROM ${anchor}, agents a WHERE a.handle = ${s.param(f.to, 'text')} AND a.forwarding AND a.endpoint_rpc_url IS NOT NULL
     FOR SHARE OF a
     RETURNING 1`,
  );
  return 'forward';
}

/**
 * Leases due deliveries. A delivery is due only when no earlier event of its channel is pending
 * (leased or not), so each channel goes out one at a time, in order, whoever claims. Rows another
 * claimer holds locked are skipped; one whose lease a concurrent claimer just committed is
 * re-checked under its lock (READ COMMITTED) and left out.
 */
const CLAIM = `
WITH due AS (
  SELECT d.id FROM deliveries d
  WHERE d.state = 'pending' AND d.next_at <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1)
    AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.task_id = d.task_id AND e.channel = d.channel AND e.seq < d.seq AND e.state = 'pending')
  ORDER BY d.next_at LIMIT $2
  FOR UPDATE OF d SKIP LOCKED
), leased AS (
  UPDATE deliveries SET lease_owner = $3, lease_until = $4 FROM due WHERE deliveries.id = due.id
  RETURNING ${DELIVERY_COLUMNS.split(', ')
    .map((c) => `deliveries.${c}`)
    .join(', ')}
)
SELECT * FROM leased ORDER BY next_at, task_id, channel, seq`;

export function outboxStatements(db: Db): OutboxStore {
  return {
    claimDeliveries: async (owner: string, now: number, leaseUntil: number, limit: number) =>
      (await db.query<DeliveryRow>(CLAIM, [now, limit, owner, leaseUntil])).rows.map(deliveryFromRow),

    finishDelivery: async (id: string, owner: string, o: DeliveryOutcome) => {
      const { rowCount } = await db.query(
        `UPDATE deliveries SET state = $3, attempts = $4, next_at = $5, last_status = $6, last_error = $7, last_attempt_at = $8,
           lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND lease_owner = $2`,
        [id, owner, o.state, o.attempts, o.nextAt, o.lastStatus ?? null, o.lastError ?? null, o.lastAttemptAt],
      );
      return rowCount === 1;
    },

    pendingDeliveries: async () =>
      (await db.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM deliveries WHERE state = 'pending'")).rows[0]?.n ??
      0,

    listDeliveries: async (taskId: string) =>
      (
        await db.query<DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE task_id = $1 ORDER BY channel, seq`,
          [taskId],
        )
      ).rows.map(deliveryFromRow),

    /**
     * Inserts or updates a config; its owner alone may change it. The task's row is locked first,
     * so puts on one task through several processes count the owner's configs one after another.
     */
    putPushConfig: (c: PushConfig, maxPerOwner: number) =>
      db.transaction(async (client): Promise<'stored' | 'taken' | 'full'> => {
        await client.query('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [c.taskId]);
        const others = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM push_configs WHERE task_id = $1 AND owner = $2 AND id <> $3',
          [c.taskId, c.owner, c.id],
        );
        if (others.rows[0]!.n >= maxPerOwner) return 'full';
        const { rowCount } = await client.query(
          `INSERT INTO push_configs (task_id, id, owner, url, token, auth_scheme, auth_credentials, protocol, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (task_id, id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token, auth_scheme = EXCLUDED.auth_scheme,
             auth_credentials = EXCLUDED.auth_credentials, protocol = EXCLUDED.protocol
           WHERE push_configs.owner = EXCLUDED.owner`,
          [
            c.taskId,
            c.id,
            c.owner,
            c.url,
            c.token ?? null,
            c.authentication?.scheme ?? null,
            c.authentication?.credentials ?? null,
            c.protocol ?? null,
            c.createdAt,
          ],
        );
        return rowCount === 1 ? 'stored' : 'taken';
      }),

    listPushConfigs: async (taskId: string) =>
      (
        await db.query<ConfigRow>('SELECT * FROM push_configs WHERE task_id = $1 ORDER BY created_at, id', [taskId])
      ).rows.map(configFromRow),

    /** Deletes a config and, in the same statement, cancels its channel's pending deliveries. */
    deletePushConfig: async (taskId: string, id: string) => {
      const { rows } = await db.query<{ gone: number }>(
        `WITH gone AS (DELETE FROM push_configs WHERE task_id = $1 AND id = $2 RETURNING id),
         canceled AS (
           UPDATE deliveries SET state = 'canceled', lease_owner = NULL, lease_until = NULL
           WHERE task_id = $1 AND channel = $3 AND state = 'pending' AND EXISTS (SELECT 1 FROM gone)
         )
         SELECT count(*)::int AS gone FROM gone`,
        [taskId, id, pushChannel(id)],
      );
      return rows[0]!.gone === 1;
    },
  };
}

/** Finished deliveries older than `before` go; pending ones stay whatever their age. */
export async function pruneDeliveries(db: Db, before: number): Promise<void> {
  await db.query("DELETE FROM deliveries WHERE state <> 'pending' AND created_at < $1", [before]);
}
