/**
 * Versions 5–14 of the PostgreSQL schema: released, so never edited again. migrations.ts runs them
 * after first-migrations.ts and appends the later versions.
 */
import { backfilledKeys, backfillRows } from '../open-key-backfill.js';
import { AGENT_PROFILES_SQL, profileBackfill } from '../agent-profile-upgrade.js';
import type { AgentRow } from '../rows.js';
import type { Migration } from './first-migrations.js';

export const SECOND_MIGRATIONS: readonly Migration[] = [
  {
    version: 5,
    name: 'open keys',
    sql: `
-- What a task's kind knows its work by while it is open (TaskRecord.openKey): no two tasks that
-- are not terminal share one. The condition is OPEN_KEY_HOLDS (rows.ts) word for word.
ALTER TABLE tasks ADD COLUMN open_key TEXT COLLATE "C";
CREATE UNIQUE INDEX tasks_open_key ON tasks(open_key)
  WHERE open_key IS NOT NULL AND state NOT IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED');
`,
    // Open tasks written before get their keys (open-key-backfill.ts), derived in TypeScript as their kinds derive them.
    data: async (client, inputs) => {
      const rows = (
        await client.query<{ id: string; kind: string; metadata: string | null }>(
          backfillRows('kind = ANY($1::text[])'),
          [Object.keys(inputs.openKeys)],
        )
      ).rows;
      const keyed = backfilledKeys(rows, inputs);
      if (keyed.length === 0) return;
      await client.query(
        'UPDATE tasks t SET open_key = k.key FROM unnest($1::text[], $2::text[]) AS k(id, key) WHERE t.id = k.id',
        [keyed.map((k) => k.id), keyed.map((k) => k.key)],
      );
    },
  },
  {
    version: 6,
    name: 'signing key rotation',
    sql: `
-- Keys rotate (POST /api/keys/rotate): the newest key signs, older ones stay published through
-- their grace, so the table holds several rows. The one-row index gives way to an advisory lock
-- that every key insert takes (signing-keys.ts): the first key is still stored once, and of two
-- rotations at once only one replaces the newest key.
DROP INDEX signing_keys_first;
`,
  },
  {
    version: 7,
    name: 'agent profiles',
    sql: AGENT_PROFILES_SQL(),
    // Agents registered before get their search columns (agent-profile-upgrade.ts), made in TypeScript as every write makes them.
    data: async (client) => {
      const columns = profileBackfill((await client.query<AgentRow>('SELECT * FROM agents')).rows);
      if (columns.length === 0) return;
      await client.query(
        `UPDATE agents a SET search_names = c.names, search_text = c.text, search_keys = c.keys
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS c(handle, names, text, keys) WHERE a.handle = c.handle`,
        [
          columns.map((c) => c.handle),
          columns.map((c) => c.search_names),
          columns.map((c) => c.search_text),
          columns.map((c) => c.search_keys),
        ],
      );
    },
  },
  {
    version: 8,
    name: 'operators',
    sql: `
-- One namespace for agents and operators: every handle is held here once, so a handle taken by
-- either is refused to the other by the primary key (holder is 'agent' or 'operator'), whichever
-- nodes the two registrations came through.
CREATE TABLE handles (
  handle TEXT COLLATE "C" PRIMARY KEY,
  holder TEXT NOT NULL
);
INSERT INTO handles (handle, holder) SELECT handle, 'agent' FROM agents;
CREATE TABLE operators (
  handle TEXT COLLATE "C" PRIMARY KEY REFERENCES handles(handle),
  name TEXT,
  created_at BIGINT NOT NULL
);
CREATE TABLE operator_tokens (
  id TEXT COLLATE "C" PRIMARY KEY,
  operator TEXT COLLATE "C" NOT NULL REFERENCES operators(handle),
  hash TEXT COLLATE "C" NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE INDEX operator_tokens_by_operator ON operator_tokens(operator);
-- The agent's owner (registered with an operator token), and its pause ('operator' or 'admin').
ALTER TABLE agents ADD COLUMN operator TEXT COLLATE "C" REFERENCES operators(handle);
ALTER TABLE agents ADD COLUMN paused_at BIGINT;
ALTER TABLE agents ADD COLUMN paused_by TEXT;
CREATE INDEX agents_by_operator ON agents(operator) WHERE operator IS NOT NULL;
`,
  },
  {
    version: 9,
    name: 'inbox logs',
    sql: `
-- Each agent's inbox log (store/inbox.ts): its last seq here (the row every write to the log
-- locks until it commits, so seqs become visible in order; changed_at for the polling fallback of
-- events.ts), its events below.
CREATE TABLE inbox_heads (
  handle TEXT COLLATE "C" PRIMARY KEY,
  last_seq INTEGER NOT NULL,
  changed_at BIGINT NOT NULL DEFAULT muster_now_ms()
);
CREATE INDEX inbox_heads_changed ON inbox_heads(changed_at);
CREATE TABLE inbox_events (
  handle TEXT COLLATE "C" NOT NULL,
  seq INTEGER NOT NULL,
  task_id TEXT COLLATE "C" NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (handle, seq)
);
CREATE INDEX inbox_events_by_task ON inbox_events(handle, task_id, seq);
-- Live inbox streams: one lease per stream, renewed while it lives; ends by the database's clock.
CREATE TABLE inbox_presence (
  handle TEXT COLLATE "C" NOT NULL,
  holder TEXT COLLATE "C" NOT NULL,
  until BIGINT NOT NULL,
  PRIMARY KEY (handle, holder)
);
`,
  },
  {
    version: 10,
    name: 'agent media modes',
    sql: `
-- The media types an agent takes and gives (identity/media-modes.ts), JSON text; NULL: the defaults.
ALTER TABLE agents ADD COLUMN input_modes TEXT;
ALTER TABLE agents ADD COLUMN output_modes TEXT;
`,
  },
  {
    version: 11,
    name: 'inbox events numbered when read',
    sql: `
-- A task write adds its inbox events unnumbered (seq NULL, in id order), taking no per-agent lock,
-- so writes to one agent no longer queue on its head row until their commits. Whoever reads an
-- inbox numbers what is committed and unnumbered first, under the head row's lock, after the head
-- (store/inbox.ts): the numbers stay gapless per agent and become visible in order.
ALTER TABLE inbox_events DROP CONSTRAINT inbox_events_pkey;
ALTER TABLE inbox_events ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
ALTER TABLE inbox_events ALTER COLUMN seq DROP NOT NULL;
CREATE UNIQUE INDEX inbox_events_seq ON inbox_events(handle, seq);
CREATE INDEX inbox_events_unnumbered ON inbox_events(handle, id) WHERE seq IS NULL;

-- Numbers the agent's committed unnumbered inbox events after its head, in id order; answers the head.
CREATE FUNCTION muster_inbox_number(p_handle text) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  head integer;
  added integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM inbox_events WHERE handle = p_handle AND seq IS NULL) THEN
    RETURN COALESCE((SELECT last_seq FROM inbox_heads WHERE handle = p_handle), 0);
  END IF;
  INSERT INTO inbox_heads (handle, last_seq) VALUES (p_handle, 0) ON CONFLICT (handle) DO NOTHING;
  -- Another reader numbering now holds the row: this waits, then reads the head it left, and the
  -- statement below (a new snapshot) sees the events it numbered as numbered.
  SELECT last_seq INTO head FROM inbox_heads WHERE handle = p_handle FOR UPDATE;
  UPDATE inbox_events e SET seq = head + n.n
  FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM inbox_events WHERE handle = p_handle AND seq IS NULL) n
  WHERE e.id = n.id;
  GET DIAGNOSTICS added = ROW_COUNT;
  UPDATE inbox_heads SET last_seq = head + added, changed_at = muster_now_ms() WHERE handle = p_handle;
  RETURN head + added;
END $$;

-- The agent's inbox events after p_after, in order, at most p_limit, numbering the new ones first.
CREATE FUNCTION muster_inbox_after(p_handle text, p_after integer, p_limit integer) RETURNS TABLE (seq integer, body text) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM muster_inbox_number(p_handle);
  RETURN QUERY SELECT e.seq, e.body FROM inbox_events e WHERE e.handle = p_handle AND e.seq > p_after ORDER BY e.seq LIMIT p_limit;
END $$;
`,
  },
  {
    version: 12,
    name: 'nodes, tasks by holder',
    sql: `
-- Each running hub process (store/nodes.ts), refreshed by its heartbeat by the database's clock.
CREATE TABLE nodes (
  id TEXT COLLATE "C" PRIMARY KEY,
  version TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  last_seen BIGINT NOT NULL,
  address TEXT
);
-- The intents a worker holds (a scope on holder), latest update first.
CREATE INDEX tasks_by_holder ON tasks(holder, updated_at, id) WHERE holder IS NOT NULL;
`,
  },
  {
    version: 13,
    name: 'operator tokens changed',
    sql: `
-- When an operator's token was made or revoked, by the database's clock: the polling fallback of
-- events.ts finds the change there, as it finds agents' tokens, while LISTEN is away.
ALTER TABLE operator_tokens ADD COLUMN changed_at BIGINT NOT NULL DEFAULT muster_now_ms();
CREATE INDEX operator_tokens_changed ON operator_tokens(changed_at);
`,
  },
  {
    version: 14,
    name: 'inbox logs from the first listen',
    sql: `
-- The agents whose inbox is logged (store/inbox.ts): from its first listen, complete once the
-- first listener added its open tasks. A write to an agent without a row here logs nothing.
CREATE TABLE inbox_logs (
  handle TEXT COLLATE "C" PRIMARY KEY,
  complete BOOLEAN NOT NULL
);
-- Logs kept before stay complete.
INSERT INTO inbox_logs (handle, complete) SELECT DISTINCT handle, true FROM inbox_events;
-- What a task's sender accepts back (TaskRecord.acceptedOutputModes), JSON text: its first
-- listener's log tells it with the task, as the task's own inbox event would have.
ALTER TABLE tasks ADD COLUMN accepts TEXT;
`,
  },
];
