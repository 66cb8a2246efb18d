/**
 * Versions 1–10 of the SQLite schema: released, so never edited again. Later
 * versions are appended in migrations.ts, which runs these first.
 */
import type Database from 'better-sqlite3';
import type { MigrationInputs } from '../open-key-backfill.js';

/** One schema version, as every migration of this store is written. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Rows SQL alone cannot compute, written after `sql` in the same transaction, with what the opener handed (MigrationInputs). */
  data?: (db: Database.Database, inputs: MigrationInputs) => void;
}

export const FIRST_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'core',
    sql: `
CREATE TABLE agents (
  handle TEXT PRIMARY KEY,
  name TEXT,
  description TEXT,
  endpoint TEXT,
  created_at INTEGER NOT NULL
);
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  handle TEXT NOT NULL REFERENCES agents(handle),
  hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX tokens_by_handle ON tokens(handle);
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  context_id TEXT NOT NULL,
  sender TEXT,
  target TEXT,
  visibility TEXT NOT NULL,
  state TEXT NOT NULL,
  status_message TEXT,
  status_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  metadata TEXT,
  message_count INTEGER NOT NULL,
  artifact_count INTEGER NOT NULL,
  version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
) WITHOUT ROWID;
-- One index per list shape, in update order, so a page is an index walk (read backwards: newest first).
-- Ascending, because new rows then land at the right edge of each index, where SQLite appends cheaply.
CREATE INDEX tasks_by_target ON tasks(target, updated_at, id);
CREATE INDEX tasks_by_pair ON tasks(target, sender, updated_at, id);
CREATE INDEX tasks_by_sender ON tasks(sender, updated_at, id);
CREATE INDEX tasks_by_context ON tasks(context_id, updated_at, id);
-- Partial: costs nothing for the private tasks that make up most of the table.
CREATE INDEX tasks_public ON tasks(updated_at, id) WHERE visibility = 'public';
CREATE TABLE messages (
  task_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;
CREATE TABLE artifacts (
  task_id TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (task_id, artifact_id)
) WITHOUT ROWID;
CREATE TABLE events (
  task_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;
CREATE TABLE receipts (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
CREATE TABLE quota_counters (
  key TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  used INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
) WITHOUT ROWID;
`,
  },
  {
    version: 2,
    name: 'push and delivery',
    sql: `
CREATE TABLE push_configs (
  task_id TEXT NOT NULL,
  id TEXT NOT NULL,
  owner TEXT NOT NULL,
  url TEXT NOT NULL,
  token TEXT,
  auth_scheme TEXT,
  auth_credentials TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, id)
) WITHOUT ROWID;
-- The outbox: one row per delivery of one event to one target, kept until it is delivered or given up.
CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  seq INTEGER NOT NULL,
  url TEXT NOT NULL,
  headers TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  last_status INTEGER,
  last_error TEXT,
  last_attempt_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX deliveries_due ON deliveries(next_at) WHERE state = 'pending';
CREATE INDEX deliveries_by_channel ON deliveries(task_id, channel, seq);
CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`,
  },
  {
    version: 3,
    name: 'endpoint control and forwarding',
    sql: `
ALTER TABLE agents ADD COLUMN endpoint_rpc_url TEXT;
ALTER TABLE agents ADD COLUMN endpoint_verified_at INTEGER;
ALTER TABLE agents ADD COLUMN forwarding INTEGER NOT NULL DEFAULT 0;
CREATE TABLE endpoint_challenges (
  handle TEXT PRIMARY KEY,
  challenge TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
  },
  {
    version: 4,
    name: 'inbox by state',
    sql: `
-- An inbox filtered by state (its open tasks, or one state) walks this index, one state at a time.
CREATE INDEX tasks_by_target_state ON tasks(target, state, updated_at, id);
`,
  },
  {
    version: 5,
    name: 'entries, due work, public lists by state',
    sql: `
-- One entry per agent per task (sealed review contributions, open-call answers), apart from the task row.
CREATE TABLE task_entries (
  task_id TEXT NOT NULL,
  author TEXT NOT NULL,
  id TEXT NOT NULL,
  position INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, author)
) WITHOUT ROWID;
CREATE INDEX task_entries_in_order ON task_entries(task_id, position);
-- Deadlines: claimed with a lease, deleted in the transaction that does the work.
CREATE TABLE due_work (
  task_id TEXT PRIMARY KEY,
  due_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX due_work_by_time ON due_work(due_at);
-- Public lists filtered by state (open reviews, closed calls) walk one state at a time.
CREATE INDEX tasks_public_by_state ON tasks(state, updated_at, id) WHERE visibility = 'public';
`,
  },
  {
    version: 6,
    name: 'target indexes only for tasks with a target',
    sql: `
-- Public tasks (reviews, calls) have no target: leaving them out of the target indexes saves
-- three index writes on every change to them. A query on target = ? still uses these.
DROP INDEX tasks_by_target;
DROP INDEX tasks_by_pair;
DROP INDEX tasks_by_target_state;
CREATE INDEX tasks_by_target ON tasks(target, updated_at, id) WHERE target IS NOT NULL;
CREATE INDEX tasks_by_pair ON tasks(target, sender, updated_at, id) WHERE target IS NOT NULL;
CREATE INDEX tasks_by_target_state ON tasks(target, state, updated_at, id) WHERE target IS NOT NULL;
`,
  },
  {
    version: 7,
    name: 'sender index only for tasks with a target',
    sql: `
-- Sent lists and an agent's own tasks at the hub base hold tasks with a target (private ones);
-- a posted review is listed with the public tasks. The index holds target too, so a count reads no rows.
DROP INDEX tasks_by_sender;
CREATE INDEX tasks_by_sender ON tasks(sender, updated_at, id, target) WHERE target IS NOT NULL;
`,
  },
  {
    version: 8,
    name: 'receipts appended in time order',
    sql: `
-- Receipt keys are the callers' own (random UUIDs as a rule): keyed by them, every receipt
-- landed on a random page and each commit rewrote one page per receipt. Rows now append in
-- time order and are found through the store's in-memory index of their keys (receipts.ts).
CREATE TABLE receipts_in_order (
  seq INTEGER PRIMARY KEY,
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO receipts_in_order (scope, key, fingerprint, result, created_at)
  SELECT scope, key, fingerprint, result, created_at FROM receipts ORDER BY created_at;
DROP TABLE receipts;
ALTER TABLE receipts_in_order RENAME TO receipts;
CREATE INDEX receipts_by_time ON receipts(created_at);
`,
  },
  {
    version: 9,
    name: 'hub settings',
    sql: `
-- Settings every process on the database shares: the admin token's hash.
CREATE TABLE hub_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`,
  },
  {
    version: 10,
    name: 'spaces',
    sql: `
-- Public bases where intents are declared and claimed; the intents themselves are tasks
-- (kind 'intent', context_id = the space's name), listed through tasks_by_context.
CREATE TABLE spaces (
  name TEXT PRIMARY KEY,
  description TEXT,
  claim TEXT NOT NULL,
  owner TEXT,
  orchestrator_priority INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
-- One role per member per space; the key is also the order members are listed in.
CREATE TABLE space_members (
  space TEXT NOT NULL REFERENCES spaces(name),
  handle TEXT NOT NULL REFERENCES agents(handle),
  role TEXT NOT NULL,
  added_at INTEGER NOT NULL,
  PRIMARY KEY (space, handle)
) WITHOUT ROWID;
`,
  },
];
