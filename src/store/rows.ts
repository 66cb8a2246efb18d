/**
 * Rows as both dialects return them (the same tables and column names in each), turned into the
 * store's records. Values a dialect stores differently are normalised here: SQLite has no boolean.
 */
import type { TaskState } from '../a2a/types.js';
import type { StoredSigningKey } from './signing-keys.js';
import type {
  AgentRecord,
  EndpointProtocol,
  FollowMeans,
  ClaimPolicy,
  TaskColumn,
  Delivery,
  NodeRecord,
  PushConfig,
  SpaceMember,
  SpacePatch,
  SpaceRecord,
  SpaceRole,
  TaskEntry,
  TaskRecord,
  TokenRecord,
} from './store.js';

/** A `tasks` row. */
/** The `tasks` columns, in the order each dialect gives a record's values (sqlite rowValues, postgres taskValues). */
export const TASK_COLUMNS = [
  'id',
  'kind',
  'context_id',
  'sender',
  'target',
  'visibility',
  'state',
  'status_message',
  'status_at',
  'created_at',
  'updated_at',
  'metadata',
  'message_count',
  'artifact_count',
  'version',
  'last_seq',
  'rank',
  'holder',
  'held_until',
  'open_key',
  'accepts',
] as const;

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
  rank: number;
  holder: string | null;
  held_until: number | null;
  open_key: string | null;
  accepts: string | null;
}

/** The `tasks` column a list scope's test names (TaskScope). */
export const SCOPE_COLUMNS: Readonly<Record<TaskColumn, keyof TaskRow>> = {
  sender: 'sender',
  target: 'target',
  visibility: 'visibility',
  kind: 'kind',
  contextId: 'context_id',
  holder: 'holder',
};

/**
 * The condition under which a task's open key holds (TaskRecord.openKey): it is not terminal.
 * Word for word the predicate of the `tasks_open_key` index in both dialects' migrations, so a
 * lookup with it can use that index (SQLite uses a partial index only for a query that repeats
 * its condition); the two must change together, by a migration.
 */
export const OPEN_KEY_HOLDS =
  "state NOT IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')";

/**
 * One kind as a literal, not a parameter, in both dialects: the partial `tasks_by_rank` (intents
 * only) is used only by a query that repeats its condition, which a bound value does not for
 * SQLite (it would prepare the statement again at every run to compare the value) nor for
 * PostgreSQL's generic plans. Kinds are the hub's own names.
 */
export const kindLiteral = (kind: unknown): string => `'${String(kind).replaceAll("'", "''")}'`;

const json = (text: string | null) => (text === null ? undefined : JSON.parse(text));
/** A JSON column's text, or null for a value that is not there. */
export const jsonText = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

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
  if (row.rank !== 0) record.rank = row.rank;
  if (row.holder !== null) record.holder = row.holder;
  if (row.held_until !== null) record.heldUntil = row.held_until;
  if (row.open_key !== null) record.openKey = row.open_key;
  if (row.accepts !== null) record.acceptedOutputModes = json(row.accepts);
  return record;
}

export interface AgentRow {
  handle: string;
  /** Absent in rows read by migrations before the agent-id one. */
  agent_id?: string | null;
  name: string | null;
  description: string | null;
  endpoint: string | null;
  created_at: number;
  endpoint_rpc_url: string | null;
  endpoint_verified_at: number | null;
  forwarding: number | boolean;
  /** Absent in rows read before the endpoint-protocol migration. */
  endpoint_protocol?: string | null;
  endpoint_follow?: string | null;
  skills: string | null;
  tags: string | null;
  /** Absent in rows read before the media-modes migration (the profile backfill). */
  input_modes?: string | null;
  output_modes?: string | null;
  operator: string | null;
  paused_at: number | null;
  paused_by: string | null;
}
export interface TokenRow {
  id: string;
  handle: string;
  created_at: number;
  revoked_at: number | null;
}

export const agentFromRow = (r: AgentRow): AgentRecord => {
  const a: AgentRecord = { handle: r.handle, id: r.agent_id ?? '', createdAt: r.created_at };
  if (r.name !== null) a.name = r.name;
  if (r.description !== null) a.description = r.description;
  if (r.endpoint !== null) a.endpoint = r.endpoint;
  if (r.endpoint_rpc_url !== null) a.endpointRpcUrl = r.endpoint_rpc_url;
  if (r.endpoint_protocol != null) a.endpointProtocol = r.endpoint_protocol as EndpointProtocol;
  if (r.endpoint_follow != null) a.endpointFollow = r.endpoint_follow as FollowMeans;
  if (r.endpoint_verified_at !== null) a.endpointVerifiedAt = r.endpoint_verified_at;
  if (r.forwarding === 1 || r.forwarding === true) a.forwarding = true; // SQLite has no boolean
  if (r.skills !== null) a.skills = json(r.skills);
  if (r.tags !== null) a.tags = json(r.tags);
  if (r.input_modes != null) a.inputModes = json(r.input_modes);
  if (r.output_modes != null) a.outputModes = json(r.output_modes);
  if (r.operator !== null) a.operator = r.operator;
  if (r.paused_at !== null) a.paused = { at: r.paused_at, by: r.paused_by === 'admin' ? 'admin' : 'operator' };
  return a;
};

export const tokenFromRow = (r: TokenRow): TokenRecord => {
  const t: TokenRecord = { id: r.id, handle: r.handle, createdAt: r.created_at };
  if (r.revoked_at !== null) t.revokedAt = r.revoked_at;
  return t;
};

export interface DeliveryRow {
  id: string;
  task_id: string;
  channel: string;
  seq: number;
  url: string;
  headers: string;
  body: string;
  state: Delivery['state'];
  attempts: number;
  next_at: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  created_at: number;
}
export interface ConfigRow {
  task_id: string;
  id: string;
  owner: string;
  url: string;
  token: string | null;
  auth_scheme: string | null;
  auth_credentials: string | null;
  protocol: string | null;
  created_at: number;
}

export const deliveryFromRow = (r: DeliveryRow): Delivery => ({
  id: r.id,
  taskId: r.task_id,
  channel: r.channel,
  seq: r.seq,
  url: r.url,
  headers: JSON.parse(r.headers),
  body: r.body,
  state: r.state,
  attempts: r.attempts,
  nextAt: r.next_at,
  createdAt: r.created_at,
  ...(r.last_status !== null ? { lastStatus: r.last_status } : {}),
  ...(r.last_error !== null ? { lastError: r.last_error } : {}),
  ...(r.last_attempt_at !== null ? { lastAttemptAt: r.last_attempt_at } : {}),
});

export const configFromRow = (r: ConfigRow): PushConfig => ({
  taskId: r.task_id,
  id: r.id,
  owner: r.owner,
  url: r.url,
  createdAt: r.created_at,
  ...(r.token !== null ? { token: r.token } : {}),
  ...(r.auth_scheme !== null
    ? {
        authentication: {
          scheme: r.auth_scheme,
          ...(r.auth_credentials !== null ? { credentials: r.auth_credentials } : {}),
        },
      }
    : {}),
  ...(r.protocol === '0.3' ? { protocol: '0.3' as const } : {}),
});

export interface EntryRow {
  task_id: string;
  author: string;
  id: string;
  body: string;
  created_at: number;
}

export const entryFromRow = (r: EntryRow): TaskEntry => ({
  taskId: r.task_id,
  author: r.author,
  id: r.id,
  body: JSON.parse(r.body),
  createdAt: r.created_at,
});

/** A `spaces` row. */
export interface SpaceRow {
  name: string;
  description: string | null;
  claim: string;
  owner: string | null;
  orchestrator_priority: number;
  created_at: number;
  updated_at: number;
}
export interface MemberRow {
  handle: string;
  role: string;
  added_at: number;
}

export const spaceFromRow = (r: SpaceRow): SpaceRecord => ({
  name: r.name,
  claim: r.claim as ClaimPolicy,
  orchestratorPriority: r.orchestrator_priority,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.description !== null ? { description: r.description } : {}),
  ...(r.owner !== null ? { owner: r.owner } : {}),
});

export const spaceToRow = (s: SpaceRecord): SpaceRow => ({
  name: s.name,
  description: s.description ?? null,
  claim: s.claim,
  owner: s.owner ?? null,
  orchestrator_priority: s.orchestratorPriority,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

/**
 * A patch as column values, where null keeps the column as it is; a description can be removed,
 * so whether the patch names it travels apart (1 or 0: SQLite binds no boolean).
 */
export const patchToRow = (p: SpacePatch) => ({
  description_given: p.description === undefined ? 0 : 1,
  description: p.description ?? null,
  claim: p.claim ?? null,
  orchestrator_priority: p.orchestratorPriority ?? null,
  updated_at: p.updatedAt,
});

export const memberFromRow = (r: MemberRow): SpaceMember => ({
  handle: r.handle,
  role: r.role as SpaceRole,
  addedAt: r.added_at,
});

export interface SigningKeyRow {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
}

export const signingKeyFromRow = (k: SigningKeyRow): StoredSigningKey => ({
  kid: k.kid,
  privateJwk: JSON.parse(k.private_jwk),
  publicJwk: JSON.parse(k.public_jwk),
  createdAt: Number(k.created_at),
});

/** The newest signing key's kid: the one that signs, and the one a rotation must replace. */
export const NEWEST_SIGNING_KEY = 'SELECT kid FROM signing_keys ORDER BY created_at DESC, kid DESC LIMIT 1';

/** A `nodes` row (store/nodes.ts); PostgreSQL gives BIGINT columns as text. */
export type NodeRow = {
  id: string;
  version: string;
  started_at: number | string;
  last_seen: number | string;
  address: string | null;
};

export const nodeFromRow = (row: NodeRow): NodeRecord => ({
  id: row.id,
  version: row.version,
  startedAt: Number(row.started_at),
  lastSeenAt: Number(row.last_seen),
  ...(row.address !== null ? { address: row.address } : {}),
});
