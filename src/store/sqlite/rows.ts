import type { TaskState } from '../../a2a/types.js';
import type { TaskRecord } from '../store.js';

/** A `tasks` row as SQLite returns it. */
export interface TaskRow {
  id: string;
  kind: string;
  context_id: string;
  sender: string | null;
  target: string | null;
  visibility: 'participants' | 'public';
  state: string;
  status_message: string | null;
  status_at: number;
  created_at: number;
  updated_at: number;
  metadata: string | null;
  message_count: number;
  artifact_count: number;
  version: number;
  last_seq: number;
}

const json = (text: string | null) => (text === null ? undefined : JSON.parse(text));
const text = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

export function recordFromRow(row: TaskRow): TaskRecord {
  const record: TaskRecord = {
    id: row.id,
    kind: row.kind,
    contextId: row.context_id,
    visibility: row.visibility,
    state: row.state as TaskState,
    statusAt: row.status_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    messageCount: row.message_count,
    artifactCount: row.artifact_count,
    version: row.version,
    lastSeq: row.last_seq,
  };
  if (row.sender !== null) record.sender = row.sender;
  if (row.target !== null) record.target = row.target;
  if (row.status_message !== null) record.statusMessage = json(row.status_message);
  if (row.metadata !== null) record.metadata = json(row.metadata);
  return record;
}

/** The `tasks` columns, in the order rowValues gives their values. */
export const TASK_COLUMNS = [
  'id', 'kind', 'context_id', 'sender', 'target', 'visibility', 'state', 'status_message', 'status_at',
  'created_at', 'updated_at', 'metadata', 'message_count', 'artifact_count', 'version', 'last_seq',
] as const;

/**
 * A `tasks` row's values in TASK_COLUMNS order, `id` first. Positional parameters: binding 16
 * named ones costs better-sqlite3 about twice as long.
 */
export function rowValues(r: TaskRecord): unknown[] {
  return [
    r.id, r.kind, r.contextId, r.sender ?? null, r.target ?? null, r.visibility, r.state, text(r.statusMessage), r.statusAt,
    r.createdAt, r.updatedAt, text(r.metadata), r.messageCount, r.artifactCount, r.version, r.lastSeq,
  ];
}
