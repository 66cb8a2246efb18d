/**
 * Numbered migrations, only ever appended once released. Pending ones run in order, once,
 * together in one IMMEDIATE transaction (see database.ts).
 */
import { randomUUID } from 'node:crypto';
import { profileBackfill } from '../agent-profile-upgrade.js';
import type { AgentRow } from '../rows.js';

import { FIRST_MIGRATIONS, type Migration } from './first-migrations.js';
import { SECOND_MIGRATIONS } from './second-migrations.js';

export const MIGRATIONS: readonly Migration[] = [
  ...FIRST_MIGRATIONS,
  ...SECOND_MIGRATIONS,
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
