import type { Db } from './database.js';
import { groupCommit } from './group-commit.js';
import type { TaskCache } from './task-cache.js';
import { TASK_COLUMNS, rowParams } from './rows.js';
import { StoreConflict, type DeliveryDraft, type TaskWrite } from '../store.js';
import { quotaCharger } from './quota-charges.js';

const isUniqueViolation = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && 'code' in e && String((e as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT');

/** Prepared statements for task writes; one transaction applies a whole TaskWrite. */
export function taskWriter(db: Db, cache: TaskCache, enqueue: (drafts: readonly DeliveryDraft[], now: number) => void) {
  const insertTask = db.prepare(
    `INSERT INTO tasks (${TASK_COLUMNS.join(', ')}) VALUES (${TASK_COLUMNS.map((c) => '@' + c).join(', ')})`,
  );
  const updateTask = db.prepare(
    `UPDATE tasks SET ${TASK_COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = @${c}`).join(', ')}
     WHERE id = @id AND version = @expected_version`,
  );
  const insertMessage = db.prepare('INSERT INTO messages (task_id, seq, body) VALUES (?, ?, ?)');
  const upsertArtifact = db.prepare(
    `INSERT INTO artifacts (task_id, artifact_id, position, body)
     VALUES (@task, @id, (SELECT COALESCE(MAX(position) + 1, 0) FROM artifacts WHERE task_id = @task), @body)
     ON CONFLICT (task_id, artifact_id) DO UPDATE SET body = excluded.body`,
  );
  const insertEvent = db.prepare('INSERT INTO events (task_id, seq, body, created_at) VALUES (?, ?, ?, ?)');
  const insertReceipt = db.prepare('INSERT INTO receipts (scope, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)');
  const chargeQuotas = quotaCharger(db);

  const children = (w: TaskWrite) => {
    const { record } = w;
    const firstMessage = record.messageCount - w.newMessages.length;
    w.newMessages.forEach((m, i) => insertMessage.run(record.id, firstMessage + i + 1, JSON.stringify(m)));
    for (const a of w.newArtifacts) upsertArtifact.run({ task: record.id, id: a.artifactId, body: JSON.stringify(a) });
    const firstEvent = record.lastSeq - w.events.length;
    w.events.forEach((e, i) => insertEvent.run(record.id, firstEvent + i + 1, JSON.stringify(e), record.updatedAt));
    if (w.receipt) {
      const r = w.receipt;
      try {
        insertReceipt.run(r.scope, r.key, r.fingerprint, JSON.stringify(r.result), record.updatedAt);
      } catch (e) {
        throw isUniqueViolation(e) ? new StoreConflict('receipt', 'idempotency receipt exists') : e;
      }
    }
    if (w.deliveries) enqueue(w.deliveries, record.updatedAt);
    chargeQuotas(w.quotas);
  };

  const create = (w: TaskWrite) => {
    try {
      insertTask.run(rowParams(w.record));
    } catch (e) {
      throw isUniqueViolation(e) ? new StoreConflict('task-id', `task ${w.record.id} exists`) : e;
    }
    children(w);
  };

  const update = (w: TaskWrite) => {
    const result = updateTask.run({ ...rowParams(w.record), expected_version: w.expectedVersion });
    if (result.changes !== 1) throw new StoreConflict('version', `task ${w.record.id} changed since it was read`);
    children(w);
  };

  const batch = groupCommit(
    db,
    (op: WriteOp) => (op.kind === 'create' ? create(op.write) : update(op.write)),
    (op) => cache.committed(op.kind, op.write),
  );
  return {
    create: (write: TaskWrite) => batch({ kind: 'create', write }),
    update: (write: TaskWrite) => batch({ kind: 'update', write }),
  };
}

type WriteOp = { kind: 'create' | 'update'; write: TaskWrite };
