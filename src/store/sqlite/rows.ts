import { jsonText as text } from '../rows.js';
import type { TaskRecord } from '../store.js';

/**
 * A `tasks` row's values in TASK_COLUMNS order, `id` first. Positional parameters: binding 20
 * named ones costs better-sqlite3 about twice as long.
 */
export function rowValues(r: TaskRecord): unknown[] {
  return [
    r.id,
    r.kind,
    r.contextId,
    r.sender ?? null,
    r.target ?? null,
    r.visibility,
    r.state,
    text(r.statusMessage),
    r.statusAt,
    r.createdAt,
    r.updatedAt,
    text(r.metadata),
    r.messageCount,
    r.artifactCount,
    r.version,
    r.lastSeq,
    r.rank ?? 0,
    r.holder ?? null,
    r.heldUntil ?? null,
    r.openKey ?? null,
    text(r.acceptedOutputModes),
  ];
}
