/**
 * Numbered migrations, only ever appended once released. Pending ones run in order, once,
 * together in one IMMEDIATE transaction (see database.ts).
 */
import { backfilledKeys, backfillRows, type MigrationInputs } from '../open-key-backfill.js';
import { AGENT_PROFILES_SQL, profileBackfill } from '../agent-profile-upgrade.js';
import type { AgentRow } from '../rows.js';
import type { Db } from './database.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Rows SQL alone cannot compute, written after `sql` in the same transaction, with what the opener handed (MigrationInputs). */
  data?: (db: Db, inputs: MigrationInputs) => void;
}

export const MIGRATIONS: readonly Migration[] = [
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
  {
    version: 11,
    name: 'task rank and holder',
    sql: `
-- A task's place in a list by rank (claimable intents: highest priority first, then oldest) and
-- its holder with the end of its hold (a worker's lease on an intent), in the row itself.
ALTER TABLE tasks ADD COLUMN rank INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN holder TEXT;
ALTER TABLE tasks ADD COLUMN held_until INTEGER;
-- Intents written before kept these in their metadata: the rank is their priority, the worker
-- holds until its lease's end (a lease the work ended, until the work's last status), and both
-- leave the metadata, so the hold is all there is of them.
UPDATE tasks SET
  rank = COALESCE(json_extract(metadata, '$.muster.priority'), 0),
  holder = json_extract(metadata, '$.muster.worker'),
  held_until = CASE WHEN json_extract(metadata, '$.muster.worker') IS NULL THEN NULL ELSE
    COALESCE(CAST(round(unixepoch(json_extract(metadata, '$.muster.leaseUntil'), 'subsec') * 1000) AS INTEGER), status_at) END,
  metadata = json_remove(metadata, '$.muster.worker', '$.muster.leaseUntil')
WHERE kind = 'intent';
-- A context's tasks of one kind in one state by rank (a space's claimable intents), walked in
-- order with no sort (see order.ts).
CREATE INDEX tasks_by_rank ON tasks(context_id, kind, state, rank DESC, created_at, id);
`,
  },
  {
    version: 12,
    name: 'memory boards',
    sql: `
-- Boards, their cards and the connections between cards (boards.ts). A card's place on its
-- board is its position; cards are never changed or removed, so the FTS index follows inserts.
CREATE TABLE boards (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  -- The title as lookups compare it (titleKey: case folded in the hub, the same on every dialect).
  title_key TEXT NOT NULL,
  owner TEXT NOT NULL REFERENCES agents(handle),
  visibility TEXT NOT NULL,
  card_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX boards_by_owner ON boards(owner, updated_at DESC, id DESC);
CREATE INDEX boards_by_title ON boards(title_key);
CREATE INDEX boards_by_visibility ON boards(visibility, updated_at DESC, id DESC);
CREATE TABLE board_readers (
  board_id TEXT NOT NULL REFERENCES boards(id),
  handle TEXT NOT NULL,
  PRIMARY KEY (board_id, handle)
) WITHOUT ROWID;
CREATE INDEX board_readers_by_handle ON board_readers(handle, board_id);
CREATE TABLE cards (
  board_id TEXT NOT NULL REFERENCES boards(id),
  id TEXT NOT NULL,
  position INTEGER NOT NULL,
  text TEXT NOT NULL,
  title TEXT,
  tags TEXT NOT NULL,
  links TEXT NOT NULL,
  written_by TEXT NOT NULL,
  claimed_by TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (board_id, id),
  UNIQUE (board_id, position)
);
-- Text, title and tags (a JSON array: its words are the tags) as the full-text index reads them.
CREATE VIRTUAL TABLE card_search USING fts5(text, title, tags, content='cards', content_rowid='rowid', tokenize='unicode61');
CREATE TRIGGER cards_indexed AFTER INSERT ON cards BEGIN
  INSERT INTO card_search (rowid, text, title, tags) VALUES (new.rowid, new.text, new.title, new.tags);
END;
CREATE TABLE card_connections (
  board_id TEXT NOT NULL REFERENCES boards(id),
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  type TEXT NOT NULL,
  written_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (board_id, from_id, to_id, type)
);
`,
  },
  {
    version: 13,
    name: 'open keys',
    sql: `
-- What a task's kind knows its work by while it is open (TaskRecord.openKey): no two tasks that
-- are not terminal share one. The condition is OPEN_KEY_HOLDS (rows.ts) word for word.
ALTER TABLE tasks ADD COLUMN open_key TEXT;
CREATE UNIQUE INDEX tasks_open_key ON tasks(open_key)
  WHERE open_key IS NOT NULL AND state NOT IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED');
`,
    // Open tasks written before get their keys (open-key-backfill.ts), derived in TypeScript as their kinds derive them.
    data: (db, inputs) => {
      const keep = db.prepare('UPDATE tasks SET open_key = ? WHERE id = ?');
      const rows = db.prepare(backfillRows('kind IN (SELECT value FROM json_each(?))')).all(JSON.stringify(Object.keys(inputs.openKeys)));
      for (const { id, key } of backfilledKeys(rows as { id: string; kind: string; metadata: string | null }[], inputs)) keep.run(key, id);
    },
  },
  {
    version: 14,
    name: 'agent profiles',
    sql: AGENT_PROFILES_SQL(),
    // Agents registered before get their search columns (agent-profile-upgrade.ts), made in TypeScript as every write makes them.
    data: (db) => {
      const keep = db.prepare('UPDATE agents SET search_names = ?, search_text = ?, search_keys = ? WHERE handle = ?');
      for (const c of profileBackfill(db.prepare('SELECT * FROM agents').all() as AgentRow[])) keep.run(c.search_names, c.search_text, c.search_keys, c.handle);
    },
  },
  {
    version: 15,
    name: 'operators',
    sql: `
-- One namespace for agents and operators: every handle is held here once, so a handle taken by
-- either is refused to the other by the primary key (holder is 'agent' or 'operator').
CREATE TABLE handles (
  handle TEXT PRIMARY KEY,
  holder TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO handles (handle, holder) SELECT handle, 'agent' FROM agents;
CREATE TABLE operators (
  handle TEXT PRIMARY KEY REFERENCES handles(handle),
  name TEXT,
  created_at INTEGER NOT NULL
);
CREATE TABLE operator_tokens (
  id TEXT PRIMARY KEY,
  operator TEXT NOT NULL REFERENCES operators(handle),
  hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX operator_tokens_by_operator ON operator_tokens(operator);
-- The agent's owner (registered with an operator token), and its pause ('operator' or 'admin').
ALTER TABLE agents ADD COLUMN operator TEXT REFERENCES operators(handle);
ALTER TABLE agents ADD COLUMN paused_at INTEGER;
ALTER TABLE agents ADD COLUMN paused_by TEXT;
CREATE INDEX agents_by_operator ON agents(operator) WHERE operator IS NOT NULL;
`,
  },
  {
    version: 16,
    name: 'inbox logs',
    sql: `
-- Each agent's inbox log (store/inbox.ts): its last seq here, its events below, written by the
-- task writes that address the agent.
CREATE TABLE inbox_heads (
  handle TEXT PRIMARY KEY,
  last_seq INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE inbox_events (
  handle TEXT NOT NULL,
  seq INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (handle, seq)
) WITHOUT ROWID;
CREATE INDEX inbox_events_by_task ON inbox_events(handle, task_id, seq);
-- Live inbox streams: one lease per stream, renewed while it lives.
CREATE TABLE inbox_presence (
  handle TEXT NOT NULL,
  holder TEXT NOT NULL,
  until INTEGER NOT NULL,
  PRIMARY KEY (handle, holder)
) WITHOUT ROWID;
`,
  },
  {
    version: 17,
    name: 'agent media modes',
    sql: `
-- The media types an agent takes and gives (identity/media-modes.ts), JSON text; NULL: the defaults.
ALTER TABLE agents ADD COLUMN input_modes TEXT;
ALTER TABLE agents ADD COLUMN output_modes TEXT;
`,
  },
];
