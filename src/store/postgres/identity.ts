/**
 * Agents, tokens, endpoint challenges and the admin token's hash. Nothing is cached: `findToken`
 * reads the database every time, so a token revoked through any process is refused at once. Token
 * and record changes send NOTIFY in their own statement and are announced here after it commits.
 */
import type {
  AgentCursor,
  AgentRecord,
  AgentSearch,
  EndpointChallenge,
  IdentityStore,
  NewAgent,
  SpokenInterface,
  ProfilePatch,
  QuotaCharge,
  QuotaGate,
} from '../store.js';
import { randomUUID } from 'node:crypto';
import {
  foundPage,
  patchedAgent,
  profileColumns,
  searchKeys,
  searchSql,
  type TextSearch,
} from '../agent-profile-rows.js';
import { tsQuery } from './boards.js';
import { Statement, type Db } from './database.js';
import type { Announcer } from './events.js';
import { AGENTS } from './notices.js';
import { chargeQuotas, gateTest } from './receipts.js';
import { agentFromRow, tokenFromRow, type AgentRow, type TokenRow } from '../rows.js';

export const AGENT_COLUMNS =
  'handle, agent_id, name, description, endpoint, created_at, endpoint_rpc_url, endpoint_protocol, endpoint_follow, endpoint_verified_at, forwarding, skills, tags, input_modes, output_modes, operator, paused_at, paused_by';
/** The directory's search parameters in PostgreSQL's words, numbered from `first` (a text search's tsquery is $1). */
const searchParams = (first: number) => ({
  skill: `$${first}::text`,
  tag: `$${first + 1}::text`,
  score: `$${first + 2}::float8`,
  createdAt: `$${first + 3}::int8`,
  handle: `$${first + 4}::text`,
  lim: `$${first + 5}::int`,
});
/**
 * The text search on the generated `search` vector (migration 23) under its GIN index: ts_rank
 * weighs handle and name (A) over tags (B) over text (C); normalisation 32 maps it into [0, 1).
 */
const TEXT_SEARCH: TextSearch = {
  from: "agents a, to_tsquery('simple', $1) q",
  match: 'a.search @@ q',
  score: "(to_tsvector('simple'::regconfig, a.search_names) @@ q)::int + ts_rank(a.search, q, 32)::float8",
};
/** The directory's search with words (its query plan is checked in postgres-store.test.ts). */
export const SEARCH_BY_TEXT = searchSql('strpos', searchParams(2), TEXT_SEARCH, AGENT_COLUMNS);
const SEARCH_BY_KEYS = searchSql('strpos', searchParams(1), undefined, AGENT_COLUMNS);
const TOKEN_COLUMNS = 'id, handle, created_at, revoked_at';
const ADMIN_TOKEN_HASH = 'admin_token_hash';

export function identityStatements(db: Db, announcer: Announcer): IdentityStore {
  /** Runs a statement that changes one agent and sends `noted`; announces the change once it committed. */
  const changeAgent = async (
    s: Statement,
    handle: string,
    change: 'tokens' | 'record',
    over?: string,
  ): Promise<AgentRow | undefined> => {
    s.with(
      'noted',
      `SELECT pg_notify('${AGENTS}', ${s.param(announcer.agentNotice(handle, change), 'text')}) FROM changed`,
    );
    const checks = over ? `, (SELECT over FROM ${over})::int AS over` : '';
    const { rows } = await db.query<AgentRow>(
      s.text(`SELECT changed.*, (SELECT count(*) FROM noted)::int AS noted${checks} FROM changed`),
      s.values,
    );
    if (rows.length) announcer.agentChanged(handle, change);
    return rows[0];
  };

  const agentOf = (row: AgentRow | undefined, handle: string): AgentRecord => {
    if (!row) throw new Error(`no agent ${handle}`);
    return agentFromRow(row);
  };

  return {
    /** The agent, its first token and its quota charges in one statement; a taken handle is StoreConflict('handle'). */
    insertAgent: async (
      agent: NewAgent,
      token: { id: string; hash: string },
      quotas: QuotaCharge[] = [],
    ): Promise<void> => {
      const s = new Statement();
      const at = s.param(agent.createdAt, 'int8');
      const p = profileColumns(agent);
      const handle = s.param(agent.handle, 'text');
      // The handle is held in the one namespace of agents and operators (a clash is handles_pkey).
      s.with('held', `INSERT INTO handles (handle, holder) VALUES (${handle}, 'agent') RETURNING handle`);
      s.with(
        'agent',
        `INSERT INTO agents (handle, agent_id, name, description, endpoint, operator, created_at, skills, tags, input_modes, output_modes, search_names, search_text, search_tags, search_keys)
         SELECT held.handle, ${s.param(agent.id ?? randomUUID(), 'text')}, ${s.param(p.name, 'text')}, ${s.param(p.description, 'text')},
           ${s.param(agent.endpoint ?? null, 'text')}, ${s.param(agent.operator ?? null, 'text')}, ${at}, ${s.param(p.skills, 'text')}, ${s.param(p.tags, 'text')},
           ${s.param(p.input_modes, 'text')}, ${s.param(p.output_modes, 'text')},
           ${s.param(p.search_names, 'text')}, ${s.param(p.search_text, 'text')}, ${s.param(p.search_tags, 'text')}, ${s.param(p.search_keys, 'text')} FROM held RETURNING handle`,
      );
      s.with(
        'token',
        `INSERT INTO tokens (id, handle, hash, created_at) SELECT ${s.param(token.id, 'text')}, handle, ${s.param(token.hash, 'text')}, ${at} FROM agent`,
      );
      const quota = chargeQuotas(s, quotas, 'agent');
      await db.query(
        s.text(
          `SELECT (SELECT count(*) FROM agent)::int AS added${quota ? `, (SELECT over FROM ${quota})::int AS over` : ''}`,
        ),
        s.values,
      );
    },

    getAgent: async (handle: string) => {
      const { rows } = await db.query<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents WHERE handle = $1`, [handle]);
      return rows[0] && agentFromRow(rows[0]);
    },

    getAgentById: async (id: string) => {
      const { rows } = await db.query<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents WHERE agent_id = $1`, [id]);
      return rows[0] && agentFromRow(rows[0]);
    },

    listAgents: async (query: { limit: number; after?: AgentCursor }) => {
      const { rows } = await db.query<AgentRow>(
        `SELECT ${AGENT_COLUMNS} FROM agents WHERE $1::int8 IS NULL OR (created_at, handle) > ($1::int8, $2::text) ORDER BY created_at, handle LIMIT $3`,
        [query.after?.createdAt ?? null, query.after?.handle ?? null, query.limit + 1],
      );
      return { agents: rows.slice(0, query.limit).map(agentFromRow), hasMore: rows.length > query.limit };
    },

    /**
     * Reads the agent's row locked, applies the patch and writes it back with its search columns,
     * NOTIFY in the same transaction: two patches at once through two processes run one after
     * the other, so neither loses the other's members (nor leaves search columns for a profile
     * that no longer stands).
     */
    updateProfile: async (handle: string, patch: ProfilePatch): Promise<AgentRecord | undefined> => {
      const agent = await db.transaction(async (client) => {
        const { rows } = await client.query<AgentRow>(
          `SELECT ${AGENT_COLUMNS} FROM agents WHERE handle = $1 FOR UPDATE`,
          [handle],
        );
        if (!rows[0]) return undefined;
        const next = patchedAgent(agentFromRow(rows[0]), patch);
        const c = profileColumns(next);
        await client.query(
          `UPDATE agents SET name = $2, description = $3, skills = $4, tags = $5, search_names = $6, search_text = $7, search_keys = $8,
             input_modes = $9, output_modes = $10, search_tags = $11, changed_at = muster_now_ms() WHERE handle = $1`,
          [
            handle,
            c.name,
            c.description,
            c.skills,
            c.tags,
            c.search_names,
            c.search_text,
            c.search_keys,
            c.input_modes,
            c.output_modes,
            c.search_tags,
          ],
        );
        await client.query(`SELECT pg_notify('${AGENTS}', $1)`, [announcer.agentNotice(handle, 'record')]);
        return next;
      });
      if (agent) announcer.agentChanged(handle, 'record');
      return agent;
    },

    searchAgents: async (query: AgentSearch) => {
      const k = searchKeys(query);
      if (query.q !== undefined && k.words.length === 0) return { agents: [], scores: [], hasMore: false };
      const text = k.words.length ? tsQuery({ words: k.words, tags: [] }, '&') : null;
      const values = [k.skill, k.tag, k.score, k.createdAt, k.handle, k.lim];
      const { rows } = await db.query<AgentRow & { score: number }>(
        text ? SEARCH_BY_TEXT : SEARCH_BY_KEYS,
        text ? [text, ...values] : values,
      );
      return foundPage(rows, query.limit);
    },

    findToken: async (hash: string, gate?: QuotaGate) => {
      const s = new Statement();
      const live = `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE hash = ${s.param(hash, 'text')} AND revoked_at IS NULL`;
      const closed = gateTest(s, gate);
      // The gate's value is selected, so it is evaluated (and refuses) whether or not a token is found.
      const sql = closed
        ? `SELECT gate.closed, token.* FROM (SELECT ${closed} AS closed) gate LEFT JOIN (${live}) token ON true`
        : live;
      const { rows } = await db.query<TokenRow>(sql, s.values);
      return rows[0]?.id ? tokenFromRow(rows[0]) : undefined;
    },

    listTokens: async (handle: string) =>
      (
        await db.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE handle = $1 ORDER BY created_at, id`, [
          handle,
        ])
      ).rows.map(tokenFromRow),

    /**
     * Adds a token; with `replace`, revokes the agent's other live tokens in the same transaction.
     * A rotation first locks the agent's row, so two at once (through two processes) run one after
     * the other, and the second revokes the first one's new token: one live token stands, as after
     * one rotation. (In one statement, the second would revoke only what its snapshot saw.)
     */
    insertToken: async (
      handle: string,
      token: { id: string; hash: string },
      now: number,
      replace: boolean,
    ): Promise<void> => {
      const add = 'INSERT INTO tokens (id, handle, hash, created_at) VALUES ($1, $2, $3, $4)';
      const notify = `SELECT pg_notify('${AGENTS}', $1)`;
      await db.transaction(async (client) => {
        if (replace) {
          await client.query('SELECT 1 FROM agents WHERE handle = $1 FOR UPDATE', [handle]);
          await client.query(
            'UPDATE tokens SET revoked_at = $2, changed_at = muster_now_ms() WHERE handle = $1 AND revoked_at IS NULL',
            [handle, now],
          );
        }
        await client.query(add, [token.id, handle, token.hash, now]);
        await client.query(notify, [announcer.agentNotice(handle, 'tokens')]);
      });
      announcer.agentChanged(handle, 'tokens');
    },

    revokeToken: async (handle: string, tokenId: string, now: number): Promise<boolean> => {
      const s = new Statement();
      s.with(
        'changed',
        `UPDATE tokens SET revoked_at = ${s.param(now, 'int8')}, changed_at = muster_now_ms()
         WHERE handle = ${s.param(handle, 'text')} AND id = ${s.param(tokenId, 'text')} AND revoked_at IS NULL RETURNING handle`,
      );
      return (await changeAgent(s, handle, 'tokens')) !== undefined;
    },

    saveChallenge: async (handle: string, c: EndpointChallenge): Promise<void> => {
      await db.query(
        `INSERT INTO endpoint_challenges (handle, challenge, endpoint, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (handle) DO UPDATE SET challenge = EXCLUDED.challenge, endpoint = EXCLUDED.endpoint, expires_at = EXCLUDED.expires_at`,
        [handle, c.challenge, c.endpoint, c.expiresAt],
      );
    },

    /** Returns and forgets the challenge in one statement, so two processes cannot both take it. */
    takeChallenge: async (handle: string): Promise<EndpointChallenge | undefined> => {
      const { rows } = await db.query<{ challenge: string; endpoint: string; expires_at: number }>(
        'DELETE FROM endpoint_challenges WHERE handle = $1 RETURNING challenge, endpoint, expires_at',
        [handle],
      );
      const row = rows[0];
      return row && { challenge: row.challenge, endpoint: row.endpoint, expiresAt: row.expires_at };
    },

    markEndpointVerified: async (
      handle: string,
      endpoint: string,
      spoken: SpokenInterface,
      now: number,
    ): Promise<AgentRecord> => {
      const s = new Statement();
      s.with(
        'changed',
        `UPDATE agents SET endpoint = ${s.param(endpoint, 'text')}, endpoint_rpc_url = ${s.param(spoken.url, 'text')},
           endpoint_protocol = ${s.param(spoken.protocol, 'text')}, endpoint_follow = ${s.param(spoken.follow, 'text')},
           endpoint_verified_at = ${s.param(now, 'int8')}, changed_at = muster_now_ms()
         WHERE handle = ${s.param(handle, 'text')} RETURNING ${AGENT_COLUMNS}`,
      );
      return agentOf(await changeAgent(s, handle, 'record'), handle);
    },

    /**
     * Switches forwarding and charges `quotas` in one statement; switching off then cancels the
     * agent's pending forwards in a second one. The switch waits for the task writes that hold the
     * agent's row to queue a forward (FOR SHARE, outbox.ts enqueueForward), and the cancel, with a
     * snapshot taken after the switch committed, sees what they queued; a write that comes later
     * reads forwarding off. (A process that dies between the two leaves those forwards pending.)
     */
    setForwarding: async (handle: string, enabled: boolean, quotas: QuotaCharge[]): Promise<AgentRecord> => {
      const s = new Statement();
      const [h, on] = [s.param(handle, 'text'), s.param(enabled, 'bool')];
      s.with(
        'changed',
        `UPDATE agents SET forwarding = ${on}, changed_at = muster_now_ms() WHERE handle = ${h} RETURNING ${AGENT_COLUMNS}`,
      );
      const over = chargeQuotas(s, quotas, 'changed');
      const agent = agentOf(await changeAgent(s, handle, 'record', over), handle);
      if (!enabled) {
        await db.query(
          `UPDATE deliveries SET state = 'canceled', lease_owner = NULL, lease_until = NULL
           WHERE state = 'pending' AND channel = 'forward' AND seq = 1 AND task_id IN (SELECT id FROM tasks WHERE target = $1)`,
          [handle],
        );
      }
      return agent;
    },

    adminTokenHash: async (): Promise<string | undefined> => {
      const { rows } = await db.query<{ value: string }>('SELECT value FROM hub_settings WHERE name = $1', [
        ADMIN_TOKEN_HASH,
      ]);
      return rows[0]?.value;
    },

    /**
     * Stores `hash` unless a hash is stored, and answers the one that stands. A process that lost
     * the race to one still committing waits for it (ON CONFLICT), but its statement's snapshot is
     * older than that commit: it reads again, with a new snapshot.
     */
    keepAdminTokenHash: async (hash: string): Promise<string> => {
      const kept = await db.query<{ value: string }>(
        `WITH kept AS (INSERT INTO hub_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value)
         SELECT value FROM kept UNION ALL SELECT value FROM hub_settings WHERE name = $1`,
        [ADMIN_TOKEN_HASH, hash],
      );
      const stood =
        kept.rows[0] ??
        (await db.query<{ value: string }>('SELECT value FROM hub_settings WHERE name = $1', [ADMIN_TOKEN_HASH]))
          .rows[0];
      if (!stood) throw new Error('the admin token hash was removed while it was being stored');
      return stood.value;
    },
  };
}
