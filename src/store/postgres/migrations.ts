/**
 * Numbered migrations, only ever appended once released. Pending ones run in order, once, in one
 * transaction under an advisory lock (see database.ts), so processes that open an empty database
 * together wait for each other and the first one migrates it.
 *
 * Tables and columns carry the SQLite names (tests and operators read both the same way).
 * Timestamps are epoch ms in BIGINT; JSON bodies are text: the store only writes and reads them
 * whole, and text skips jsonb's parse on every write. Keys and ids are COLLATE "C": lists order by
 * id as SQLite does (bytes), and comparisons skip the locale.
 */
import { profileBackfill } from '../agent-profile-upgrade.js';
import type { AgentRow } from '../rows.js';

import { FIRST_MIGRATIONS, type Migration } from './first-migrations.js';
import { SECOND_MIGRATIONS } from './second-migrations.js';

export const MIGRATIONS: readonly Migration[] = [
  ...FIRST_MIGRATIONS,
  ...SECOND_MIGRATIONS,
  {
    version: 15,
    name: 'checks on the agents row',
    sql: `
-- Whether the agent's inbox log has begun (inbox_logs holds the same, and whether it is complete),
-- on the row every write to the agent reads already (targets.ts): a write that left out its inbox
-- events is refused there, at no further read.
ALTER TABLE agents ADD COLUMN inbox_logged BOOLEAN NOT NULL DEFAULT false;
UPDATE agents SET inbox_logged = true WHERE handle IN (SELECT handle FROM inbox_logs);
-- The part check against an agent's own input modes (refusedPart's rule; MU415 with
-- index|modes|media type): a function, so a write to an agent under the defaults does not plan it.
CREATE FUNCTION muster_take_parts(p_agent text, p_modes text, p_types text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  refused record;
BEGIN
  SELECT t.i, t.m INTO refused FROM unnest(p_types) WITH ORDINALITY AS t(m, i)
  WHERE t.m IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_array_elements_text(p_modes::json) AS d(m)
    WHERE d.m = '*/*' OR d.m = t.m OR (right(d.m, 2) = '/*' AND starts_with(t.m, left(d.m, -1))))
  ORDER BY t.i LIMIT 1;
  IF FOUND THEN
    RETURN muster_refuse('MU415', p_agent, concat_ws('|', refused.i - 1, p_modes, refused.m));
  END IF;
  RETURN 1;
END $$;
`,
  },
  {
    version: 16,
    name: 'push config protocol',
    sql: `
-- The A2A version a push config was set through ('0.3'); NULL: 1.0. A 0.3 config's deliveries
-- are the task itself in 0.3 shape, which 0.3 receivers expect (hub/push.ts).
ALTER TABLE push_configs ADD COLUMN protocol TEXT;
`,
  },
  {
    version: 17,
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
    version: 18,
    name: 'tasks by sender alone',
    sql: `
-- The tasks an agent sent to no target that only their readers see (its memory calls): the hub's
-- base lists them to their sender and its operator (hub/view.ts), one index walk by sender and visibility.
CREATE INDEX tasks_by_sender_alone ON tasks(sender, visibility, updated_at, id) WHERE target IS NULL;
`,
  },
  {
    version: 19,
    name: 'agent ids',
    sql: `
-- Each agent's stable public id (AgentRecord.id, a UUID), which REST routes take beside its handle;
-- agents registered before get theirs here, new ones as they register.
ALTER TABLE agents ADD COLUMN agent_id TEXT COLLATE "C";
UPDATE agents SET agent_id = gen_random_uuid()::text;
ALTER TABLE agents ALTER COLUMN agent_id SET NOT NULL;
CREATE UNIQUE INDEX agents_by_id ON agents(agent_id);
`,
  },
  {
    version: 20,
    name: 'paths tasks wrote',
    sql: `
-- The paths a task's work wrote (TaskWrite.wrote: the files an intent's landing names), by its
-- context: which tasks of a space wrote a path, latest first, is one walk of the key.
CREATE TABLE task_paths (
  context_id TEXT COLLATE "C" NOT NULL,
  path TEXT COLLATE "C" NOT NULL,
  written_at BIGINT NOT NULL,
  task_id TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (context_id, path, written_at, task_id)
);
`,
  },
  {
    version: 21,
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
    version: 22,
    name: 'entries by author',
    sql: `
-- An agent's own entries on every task, latest first (what it contributed): one walk of the index.
CREATE INDEX task_entries_by_author ON task_entries(author, created_at, task_id);
`,
  },
  {
    version: 23,
    name: 'agent search index',
    sql: `
-- The directory's full-text index (agent-profile-rows.ts): a vector generated from agents' search
-- columns, so every write to the row keeps it in step. Handle and name weigh most (A), then tags
-- (B), then the description and skills (C), as ts_rank reads the weights.
ALTER TABLE agents ADD COLUMN search_tags TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN search tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, search_names), 'A') ||
  setweight(to_tsvector('simple'::regconfig, search_tags), 'B') ||
  setweight(to_tsvector('simple'::regconfig, search_text), 'C')) STORED;
CREATE INDEX agents_search ON agents USING gin (search);
`,
    // Agents registered before get their widened search columns, made in TypeScript as every write makes them.
    data: async (client) => {
      const columns = profileBackfill((await client.query<AgentRow>('SELECT * FROM agents')).rows);
      if (columns.length === 0) return;
      await client.query(
        `UPDATE agents a SET search_text = c.text, search_tags = c.tags
         FROM unnest($1::text[], $2::text[], $3::text[]) AS c(handle, text, tags) WHERE a.handle = c.handle`,
        [columns.map((c) => c.handle), columns.map((c) => c.search_text), columns.map((c) => c.search_tags)],
      );
    },
  },
  {
    version: 24,
    name: 'receipts by block range, rank index for intents only',
    sql: `
-- No read but the hourly prune looks receipts up by time, and the B-tree on it cost each
-- SendMessage an index insert and its WAL. A BRIN index keeps only each range of heap pages' least
-- and greatest time: an insert into the range still being filled writes nothing to it, and the
-- prune reads only the ranges holding expired receipts, whatever order nodes with different clocks
-- appended them in (a range's bounds are a filter, every row is still compared).
DROP INDEX receipts_by_time;
CREATE INDEX receipts_by_time ON receipts USING brin (created_at);
-- The one list by rank within a context is a space's claimable intents (kinds/intent/listing.ts);
-- every other task's entry here was written and never read. Its queries name the kind as a
-- literal (rows.ts, kindLiteral), which a generic plan needs to use a partial index.
DROP INDEX tasks_by_rank;
CREATE INDEX tasks_by_rank ON tasks(context_id, kind, state, rank DESC, created_at, id) WHERE kind = 'intent';
`,
  },
];
