/**
 * Versions 11–20 of the SQLite schema: released, so never edited again. migrations.ts runs them
 * after first-migrations.ts and appends the later versions.
 */
import { backfilledKeys, backfillRows } from '../open-key-backfill.js';
import { AGENT_PROFILES_SQL, profileBackfill } from '../agent-profile-upgrade.js';
import type { AgentRow } from '../rows.js';
import type { Migration } from './first-migrations.js';

export const SECOND_MIGRATIONS: readonly Migration[] = [
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
];
