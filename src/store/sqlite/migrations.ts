/**
 * Numbered migrations, only ever appended once released. Pending ones run in order, once,
 * together in one IMMEDIATE transaction (see database.ts).
 */
import { randomUUID } from 'node:crypto';
import { backfilledKeys, backfillRows, type MigrationInputs } from '../open-key-backfill.js';
import { AGENT_PROFILES_SQL, profileBackfill } from '../agent-profile-upgrade.js';
import type { AgentRow } from '../rows.js';
import type { Db } from './database.js';

import { FIRST_MIGRATIONS } from './first-migrations.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Rows SQL alone cannot compute, written after `sql` in the same transaction, with what the opener handed (MigrationInputs). */
  data?: (db: Db, inputs: MigrationInputs) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  ...FIRST_MIGRATIONS,
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
      const rows = db
        .prepare(backfillRows('kind IN (SELECT value FROM json_each(?))'))
        .all(JSON.stringify(Object.keys(inputs.openKeys)));
      for (const { id, key } of backfilledKeys(rows as { id: string; kind: string; metadata: string | null }[], inputs))
        keep.run(key, id);
    },
  },
  {
    version: 14,
    name: 'agent profiles',
    sql: AGENT_PROFILES_SQL(),
    // Agents registered before get their search columns (agent-profile-upgrade.ts), made in TypeScript as every write makes them.
    data: (db) => {
      const keep = db.prepare('UPDATE agents SET search_names = ?, search_text = ?, search_keys = ? WHERE handle = ?');
      for (const c of profileBackfill(db.prepare('SELECT * FROM agents').all() as AgentRow[]))
        keep.run(c.search_names, c.search_text, c.search_keys, c.handle);
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
  {
    version: 18,
    name: 'inbox heads from the log',
    sql: `
-- An inbox event takes the seq after its log's last (one process writes, one write at a time),
-- read from inbox_events' own key: a head row to update as well cost every task write a statement.
DROP TABLE inbox_heads;
`,
  },
  {
    version: 19,
    name: 'nodes, tasks by holder',
    sql: `
-- Each running hub process (store/nodes.ts), refreshed by its heartbeat.
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  version TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  address TEXT
) WITHOUT ROWID;
-- The intents a worker holds (a scope on holder), latest update first.
CREATE INDEX tasks_by_holder ON tasks(holder, updated_at, id) WHERE holder IS NOT NULL;
`,
  },
  {
    version: 20,
    name: 'inbox logs from the first listen',
    sql: `
-- The agents whose inbox is logged (store/inbox.ts): from its first listen, complete once the
-- first listener added its open tasks. A write to an agent without a row here logs nothing.
CREATE TABLE inbox_logs (
  handle TEXT PRIMARY KEY,
  complete INTEGER NOT NULL
) WITHOUT ROWID;
-- Logs kept before stay complete.
INSERT INTO inbox_logs (handle, complete) SELECT DISTINCT handle, 1 FROM inbox_events;
-- What a task's sender accepts back (TaskRecord.acceptedOutputModes), JSON text: its first
-- listener's log tells it with the task, as the task's own inbox event would have.
ALTER TABLE tasks ADD COLUMN accepts TEXT;
`,
  },
  {
    version: 21,
    name: 'push config protocol',
    sql: `
-- The A2A version a push config was set through ('0.3'); NULL: 1.0. A 0.3 config's deliveries
-- are the task itself in 0.3 shape, which 0.3 receivers expect (hub/push.ts).
ALTER TABLE push_configs ADD COLUMN protocol TEXT;
`,
  },
  {
    version: 22,
    name: 'endpoint protocol',
    sql: `
-- The binding and version the hub speaks to an agent's own endpoint ('JSONRPC/1.0', 'HTTP+JSON/1.0',
-- 'JSONRPC/0.3'), read from its card at verification; NULL: 1.0 JSON-RPC, all that was spoken before.
ALTER TABLE agents ADD COLUMN endpoint_protocol TEXT;
-- How the hub follows forwarded tasks there, the best means the card offers: 'streaming',
-- 'push' (notifications to the hub) or 'polling'; NULL: polling.
ALTER TABLE agents ADD COLUMN endpoint_follow TEXT;
`,
  },
  {
    version: 23,
    name: 'tasks by sender alone',
    sql: `
-- The tasks an agent sent to no target that only their readers see (its memory calls): the hub's
-- base lists them to their sender and its operator (hub/view.ts), one index walk by sender and visibility.
-- It holds target too, so a count reads the index alone (SQLite reads a row for a column it lacks).
CREATE INDEX tasks_by_sender_alone ON tasks(sender, visibility, updated_at, id, target) WHERE target IS NULL;
`,
  },
  {
    version: 24,
    name: 'agent ids',
    sql: `
-- Each agent's stable public id (AgentRecord.id, a UUID), which REST routes take beside its handle.
ALTER TABLE agents ADD COLUMN agent_id TEXT;
CREATE UNIQUE INDEX agents_by_id ON agents(agent_id);
`,
    // Agents registered before get theirs here; new ones get theirs as they register.
    data: (db) => {
      const give = db.prepare('UPDATE agents SET agent_id = ? WHERE handle = ?');
      for (const handle of db.prepare('SELECT handle FROM agents WHERE agent_id IS NULL').pluck().all() as string[])
        give.run(randomUUID(), handle);
    },
  },
  {
    version: 25,
    name: 'paths tasks wrote',
    sql: `
-- The paths a task's work wrote (TaskWrite.wrote: the files an intent's landing names), by its
-- context: which tasks of a space wrote a path, latest first, is one walk of the key.
CREATE TABLE task_paths (
  context_id TEXT NOT NULL,
  path TEXT NOT NULL,
  written_at INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  PRIMARY KEY (context_id, path, written_at, task_id)
) WITHOUT ROWID;
`,
  },
  {
    version: 26,
    name: 'skill cards and capture fields',
    sql: `
-- What a card is beside its text (CardRecord): 'skill' for a how-to learned with board.learn (recall
-- puts those first), NULL for a plain card; the references and the check its writer gave, kept as
-- written (evidence a JSON array), never followed or run.
ALTER TABLE cards ADD COLUMN kind TEXT;
ALTER TABLE cards ADD COLUMN evidence TEXT;
ALTER TABLE cards ADD COLUMN verify TEXT;
`,
  },
  {
    version: 27,
    name: 'entries by author',
    sql: `
-- An agent's own entries on every task, latest first (what it contributed): one walk of the index.
CREATE INDEX task_entries_by_author ON task_entries(author, created_at, task_id);
`,
  },
  {
    version: 28,
    name: 'agent search index',
    sql: `
-- The directory's full-text index (agent-profile-rows.ts): handle and name, text (description and
-- skills), tags, read from agents' search columns and kept in step by these triggers, in the
-- transaction of the write to agents itself (registration, profile update, deletion).
ALTER TABLE agents ADD COLUMN search_tags TEXT NOT NULL DEFAULT '';
CREATE VIRTUAL TABLE agent_search USING fts5(search_names, search_text, search_tags, content='agents', content_rowid='rowid', tokenize='unicode61');
-- The agents registered before, indexed as their rows stand (the backfill below goes through the triggers).
INSERT INTO agent_search (agent_search) VALUES ('rebuild');
CREATE TRIGGER agents_indexed AFTER INSERT ON agents BEGIN
  INSERT INTO agent_search (rowid, search_names, search_text, search_tags) VALUES (new.rowid, new.search_names, new.search_text, new.search_tags);
END;
CREATE TRIGGER agents_unindexed AFTER DELETE ON agents BEGIN
  INSERT INTO agent_search (agent_search, rowid, search_names, search_text, search_tags) VALUES ('delete', old.rowid, old.search_names, old.search_text, old.search_tags);
END;
CREATE TRIGGER agents_reindexed AFTER UPDATE OF search_names, search_text, search_tags ON agents BEGIN
  INSERT INTO agent_search (agent_search, rowid, search_names, search_text, search_tags) VALUES ('delete', old.rowid, old.search_names, old.search_text, old.search_tags);
  INSERT INTO agent_search (rowid, search_names, search_text, search_tags) VALUES (new.rowid, new.search_names, new.search_text, new.search_tags);
END;
`,
    // Agents registered before get their widened search columns, made in TypeScript as every write makes them.
    data: (db) => {
      const keep = db.prepare('UPDATE agents SET search_text = ?, search_tags = ? WHERE handle = ?');
      for (const c of profileBackfill(db.prepare('SELECT * FROM agents').all() as AgentRow[]))
        keep.run(c.search_text, c.search_tags, c.handle);
    },
  },
  {
    version: 29,
    name: 'receipts pruned in the order written',
    sql: `
-- Receipts are appended in time order and pruned from the oldest on (receipts.ts): the index on
-- their time cost every SendMessage an insert and several pages of each commit, and no read uses it.
DROP INDEX receipts_by_time;
`,
  },
  {
    version: 30,
    name: 'rank index for intents only',
    sql: `
-- The one list by rank within a context is a space's claimable intents (kinds/intent/listing.ts);
-- every other task's entry here was written and never read: an index B-tree in each SendMessage's
-- commit. Its queries name the kind as a literal (task-reads.ts), so SQLite can use it.
DROP INDEX tasks_by_rank;
CREATE INDEX tasks_by_rank ON tasks(context_id, kind, state, rank DESC, created_at, id) WHERE kind = 'intent';
`,
  },
  {
    version: 31,
    name: 'events appended',
    sql: `
-- The event log as an ordinary (rowid) table: a new event goes at the end of the table, beside the
-- events written just before it, and a row keeps up to about 4,000 bytes in its page. In the WITHOUT
-- ROWID table a row over about 1,000 bytes (a review's evaluation artifact) spilled into an overflow
-- page of its own: 1.1 of the 3.5 database pages each of 10,000 evaluations wrote. The key is now
-- the primary key's own index, which every read of events walks as before.
CREATE TABLE events_appended (
  task_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, seq)
);
INSERT INTO events_appended (task_id, seq, body, created_at)
  SELECT task_id, seq, body, created_at FROM events ORDER BY created_at, task_id, seq;
DROP TABLE events;
ALTER TABLE events_appended RENAME TO events;
`,
  },
];
