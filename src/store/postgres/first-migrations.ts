/**
 * Versions 1–4 of the PostgreSQL schema: released, so never edited again. Later
 * versions are appended in migrations.ts, which runs these first.
 */
import type pg from 'pg';
import type { MigrationInputs } from '../open-key-backfill.js';

/** One schema version, as every migration of this store is written. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Rows SQL alone cannot compute, written after `sql` in the same transaction, with what the opener handed (MigrationInputs). */
  data?: (client: pg.ClientBase, inputs: MigrationInputs) => Promise<void>;
}

export const FIRST_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'core',
    sql: `
-- The database's clock in epoch ms: changed_at columns use it, so the polling fallback of
-- events.ts reads one clock whichever process wrote (a write's own timestamps are its writer's).
CREATE FUNCTION muster_now_ms() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT (extract(epoch FROM now()) * 1000)::bigint $$;

-- A write refuses itself from inside its statement, so everything it wrote so far rolls back with it.
-- database.ts turns MU409 into StoreConflict(what) and MU429 into QuotaExceeded(key, limit).
CREATE FUNCTION muster_refuse(code text, what text, detail text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = code, MESSAGE = what, DETAIL = detail;
END $$;

CREATE TABLE agents (
  handle TEXT COLLATE "C" PRIMARY KEY,
  name TEXT,
  description TEXT,
  endpoint TEXT,
  created_at BIGINT NOT NULL,
  endpoint_rpc_url TEXT,
  endpoint_verified_at BIGINT,
  forwarding BOOLEAN NOT NULL DEFAULT false,
  changed_at BIGINT NOT NULL DEFAULT muster_now_ms()
);
CREATE INDEX agents_changed ON agents(changed_at);
CREATE TABLE tokens (
  id TEXT COLLATE "C" PRIMARY KEY,
  handle TEXT COLLATE "C" NOT NULL REFERENCES agents(handle),
  hash TEXT COLLATE "C" NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  changed_at BIGINT NOT NULL DEFAULT muster_now_ms()
);
CREATE INDEX tokens_by_handle ON tokens(handle);
CREATE INDEX tokens_changed ON tokens(changed_at);
CREATE TABLE endpoint_challenges (
  handle TEXT COLLATE "C" PRIMARY KEY,
  challenge TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE TABLE hub_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE tasks (
  id TEXT COLLATE "C" PRIMARY KEY,
  kind TEXT NOT NULL,
  context_id TEXT COLLATE "C" NOT NULL,
  sender TEXT COLLATE "C",
  target TEXT COLLATE "C",
  visibility TEXT NOT NULL,
  state TEXT COLLATE "C" NOT NULL,
  status_message TEXT,
  status_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  metadata TEXT,
  message_count INTEGER NOT NULL,
  artifact_count INTEGER NOT NULL,
  version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  -- When the row was last written by the database's clock: what the polling fallback reads.
  changed_at BIGINT NOT NULL
);
-- One index per list shape, in update order, so a page is an index walk (read backwards:
-- newest first). Private tasks are the ones with a target; public ones (reviews, calls) stay out
-- of the target and sender indexes and in the partial public ones.
CREATE INDEX tasks_by_target ON tasks(target, updated_at, id) WHERE target IS NOT NULL;
CREATE INDEX tasks_by_pair ON tasks(target, sender, updated_at, id) WHERE target IS NOT NULL;
CREATE INDEX tasks_by_target_state ON tasks(target, state, updated_at, id) WHERE target IS NOT NULL;
CREATE INDEX tasks_by_sender ON tasks(sender, updated_at, id) WHERE target IS NOT NULL;
CREATE INDEX tasks_by_context ON tasks(context_id, updated_at, id);
CREATE INDEX tasks_public ON tasks(updated_at, id) WHERE visibility = 'public';
CREATE INDEX tasks_public_by_state ON tasks(state, updated_at, id) WHERE visibility = 'public';
-- The polling fallback asks for tasks changed since its last look.
CREATE INDEX tasks_changed ON tasks(changed_at);

CREATE TABLE messages (
  task_id TEXT COLLATE "C" NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (task_id, seq)
);
CREATE TABLE artifacts (
  task_id TEXT COLLATE "C" NOT NULL,
  artifact_id TEXT COLLATE "C" NOT NULL,
  position INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (task_id, artifact_id)
);
CREATE TABLE events (
  task_id TEXT COLLATE "C" NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (task_id, seq)
);

-- One entry per agent per task (sealed review contributions, open-call answers), apart from the task row.
CREATE TABLE task_entries (
  task_id TEXT COLLATE "C" NOT NULL,
  author TEXT COLLATE "C" NOT NULL,
  id TEXT NOT NULL,
  position INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (task_id, author)
);
CREATE INDEX task_entries_in_order ON task_entries(task_id, position);

-- An entry's rule, checked under the task row's lock. A volatile function's queries each take a
-- fresh snapshot, so the counts below see every entry committed by whoever held the lock before
-- (a check in the writing statement itself would read the statement's older snapshot). Answers
-- the count, which is the new entry's position. p_author NULL: only the count is checked (p_seen).
CREATE FUNCTION muster_entry_gate(p_task text, p_author text, p_state text, p_max integer, p_seen integer)
RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  current_state text;
  held integer;
BEGIN
  SELECT state INTO current_state FROM tasks WHERE id = p_task FOR UPDATE;
  SELECT count(*) INTO held FROM task_entries WHERE task_id = p_task;
  IF p_seen IS NOT NULL AND held <> p_seen THEN
    PERFORM muster_refuse('MU409', 'version', format('task %s has new entries since it was read', p_task));
  END IF;
  IF p_author IS NOT NULL THEN
    IF current_state IS DISTINCT FROM p_state THEN
      PERFORM muster_refuse('MU409', 'entry-closed', format('task %s is no longer %s', p_task, p_state));
    END IF;
    IF EXISTS (SELECT 1 FROM task_entries WHERE task_id = p_task AND author = p_author) THEN
      PERFORM muster_refuse('MU409', 'entry-exists', format('%s has an entry on task %s', p_author, p_task));
    END IF;
    IF held >= p_max THEN
      PERFORM muster_refuse('MU409', 'entry-full', format('task %s holds %s entries', p_task, held));
    END IF;
  END IF;
  RETURN held;
END $$;

CREATE TABLE receipts (
  scope TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  fingerprint TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX receipts_by_time ON receipts(created_at);
CREATE TABLE quota_counters (
  key TEXT COLLATE "C" NOT NULL,
  window_start BIGINT NOT NULL,
  used INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);

-- Deadlines: claimed with a lease, deleted in the transaction that does the work.
CREATE TABLE due_work (
  task_id TEXT COLLATE "C" PRIMARY KEY,
  due_at BIGINT NOT NULL,
  lease_owner TEXT,
  lease_until BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX due_work_by_time ON due_work(due_at);

CREATE TABLE push_configs (
  task_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  owner TEXT NOT NULL,
  url TEXT NOT NULL,
  token TEXT,
  auth_scheme TEXT,
  auth_credentials TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (task_id, id)
);
-- The outbox: one row per delivery of one event to one target, kept until it is delivered or given up.
CREATE TABLE deliveries (
  id TEXT COLLATE "C" PRIMARY KEY,
  task_id TEXT COLLATE "C" NOT NULL,
  channel TEXT COLLATE "C" NOT NULL,
  seq INTEGER NOT NULL,
  url TEXT NOT NULL,
  headers TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_at BIGINT NOT NULL,
  lease_owner TEXT,
  lease_until BIGINT,
  last_status INTEGER,
  last_error TEXT,
  last_attempt_at BIGINT,
  created_at BIGINT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries(next_at) WHERE state = 'pending';
CREATE INDEX deliveries_by_channel ON deliveries(task_id, channel, seq);
CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
-- The first key stored is the one every process signs with: a second row is refused outright,
-- so two processes saving their own keys at once cannot both win.
CREATE UNIQUE INDEX signing_keys_first ON signing_keys((true));
`,
  },
  {
    version: 2,
    name: 'spaces',
    sql: `
-- Public bases where intents are declared and claimed; the intents themselves are tasks
-- (kind 'intent', context_id = the space's name), listed through tasks_by_context.
CREATE TABLE spaces (
  name TEXT COLLATE "C" PRIMARY KEY,
  description TEXT,
  claim TEXT NOT NULL,
  owner TEXT COLLATE "C",
  orchestrator_priority INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
-- One role per member per space; the key is also the order members are listed in.
CREATE TABLE space_members (
  space TEXT COLLATE "C" NOT NULL REFERENCES spaces(name),
  handle TEXT COLLATE "C" NOT NULL REFERENCES agents(handle),
  role TEXT NOT NULL,
  added_at BIGINT NOT NULL,
  PRIMARY KEY (space, handle)
);
`,
  },
  {
    version: 3,
    name: 'task rank and holder',
    sql: `
-- A task's place in a list by rank (claimable intents: highest priority first, then oldest) and
-- its holder with the end of its hold (a worker's lease on an intent), in the row itself.
ALTER TABLE tasks ADD COLUMN rank INTEGER NOT NULL DEFAULT 0, ADD COLUMN holder TEXT COLLATE "C", ADD COLUMN held_until BIGINT;
-- Intents written before kept these in their metadata: the rank is their priority, the worker
-- holds until its lease's end (a lease the work ended, until the work's last status), and both
-- leave the metadata, so the hold is all there is of them (metadata is rewritten only where
-- they were: jsonb's text orders the keys its own way).
UPDATE tasks t SET
  rank = COALESCE((i.m #>> '{muster,priority}')::integer, 0),
  holder = i.m #>> '{muster,worker}',
  held_until = CASE WHEN i.m #> '{muster,worker}' IS NULL THEN NULL ELSE
    COALESCE((extract(epoch FROM (i.m #>> '{muster,leaseUntil}')::timestamptz) * 1000)::bigint, t.status_at) END,
  metadata = CASE WHEN i.m -> 'muster' ?| ARRAY['worker', 'leaseUntil'] THEN (i.m #- '{muster,worker}' #- '{muster,leaseUntil}')::text ELSE t.metadata END
FROM (SELECT id, metadata::jsonb AS m FROM tasks WHERE kind = 'intent') i
WHERE t.id = i.id;
-- A context's tasks of one kind in one state by rank (a space's claimable intents), walked in
-- order with no sort (see order.ts).
CREATE INDEX tasks_by_rank ON tasks(context_id, kind, state, rank DESC, created_at, id);
`,
  },
  {
    version: 4,
    name: 'memory boards',
    sql: `
-- Boards, their cards and the connections between cards (boards.ts). Cards are never changed or
-- removed; each carries its search vector: tags weigh most (A), then the title (B), then the text.
CREATE TABLE boards (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  -- The title as lookups compare it (titleKey: case folded in the hub, the same on every dialect).
  title_key TEXT NOT NULL,
  owner TEXT NOT NULL REFERENCES agents(handle),
  visibility TEXT NOT NULL,
  card_count INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX boards_by_owner ON boards(owner, updated_at DESC, id DESC);
CREATE INDEX boards_by_title ON boards(title_key);
CREATE INDEX boards_by_visibility ON boards(visibility, updated_at DESC, id DESC);
CREATE TABLE board_readers (
  board_id TEXT NOT NULL REFERENCES boards(id),
  handle TEXT NOT NULL,
  PRIMARY KEY (board_id, handle)
);
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
  created_at BIGINT NOT NULL,
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple'::regconfig, tags), 'A') ||
    setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'B') ||
    setweight(to_tsvector('simple'::regconfig, text), 'C')) STORED,
  PRIMARY KEY (board_id, id),
  UNIQUE (board_id, position)
);
CREATE INDEX cards_search ON cards USING gin (search);
CREATE TABLE card_connections (
  board_id TEXT NOT NULL REFERENCES boards(id),
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  type TEXT NOT NULL,
  written_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  seq BIGSERIAL,
  PRIMARY KEY (board_id, from_id, to_id, type)
);
`,
  },
];
