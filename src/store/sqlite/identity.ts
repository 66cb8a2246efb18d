import { randomUUID } from 'node:crypto';
import { isConstraintViolation, type Db } from './database.js';
import {
  StoreConflict,
  type AgentCursor,
  type AgentSearch,
  type NewAgent,
  type EndpointChallenge,
  type EventBus,
  type SpokenInterface,
  type IdentityStore,
  type ProfilePatch,
  type QuotaCharge,
  type QuotaGate,
} from '../store.js';
import { quotaStatements } from './quota-charges.js';
import { agentFromRow, tokenFromRow, type AgentRow, type TokenRow } from '../rows.js';
import {
  foundPage,
  patchedAgent,
  profileColumns,
  searchKeys,
  searchSql,
  type TextSearch,
} from '../agent-profile-rows.js';
import { matchExpression } from './boards.js';

const ADMIN_TOKEN_HASH = 'admin_token_hash';
const LIVE_TOKEN = 'SELECT id, handle, created_at, revoked_at FROM tokens WHERE hash = ? AND revoked_at IS NULL';

/** bm25 over handle and name, text, tags (agent_search's columns): lower is better, never above 0. */
const BM25 = 'bm25(agent_search, 10.0, 1.0, 4.0)';
/** The directory's text search on FTS5 (`agent_search`, migration 28): `@match`, and `@names` (the match within handle and name). */
const TEXT_SEARCH: TextSearch = {
  from: 'agent_search JOIN agents a ON a.rowid = agent_search.rowid',
  match: 'agent_search MATCH @match',
  score: `(a.rowid IN (SELECT rowid FROM agent_search WHERE agent_search MATCH @names)) - ${BM25} / (1 - ${BM25})`,
};

const SEARCH_PARAMS = {
  skill: '@skill',
  tag: '@tag',
  score: '@score',
  createdAt: '@createdAt',
  handle: '@handle',
  lim: '@lim',
};
/** The directory's search with words (its query plan is checked in sqlite-store.test.ts). */
export const SEARCH_BY_TEXT = searchSql('instr', SEARCH_PARAMS, TEXT_SEARCH);

/** Whether the token with this hash is live, in a plain call: task writes ask it inside their transaction. */
export function tokenLiveness(db: Db): (hash: string) => boolean {
  const live = db.prepare(LIVE_TOKEN);
  return (hash) => live.get(hash) !== undefined;
}

/** Agents, tokens, endpoint challenges and the admin token's hash; token and agent changes are announced on `bus`. */
export function identityStatements(db: Db, bus: EventBus): IdentityStore {
  const insertAgentRow = db.prepare(
    `INSERT INTO agents (handle, agent_id, name, description, endpoint, operator, created_at, skills, tags, input_modes, output_modes, search_names, search_text, search_tags, search_keys)
     VALUES (@handle, @agentId, @name, @description, @endpoint, @operator, @createdAt, @skills, @tags, @input_modes, @output_modes, @search_names, @search_text, @search_tags, @search_keys)`,
  );
  const holdHandle = db.prepare("INSERT INTO handles (handle, holder) VALUES (?, 'agent')");
  const insertTokenRow = db.prepare('INSERT INTO tokens (id, handle, hash, created_at) VALUES (?, ?, ?, ?)');
  const revokeOthers = db.prepare('UPDATE tokens SET revoked_at = ? WHERE handle = ? AND revoked_at IS NULL');
  const getAgentRow = db.prepare('SELECT * FROM agents WHERE handle = ?');
  const getAgentById = db.prepare('SELECT * FROM agents WHERE agent_id = ?');
  const agentPage = db.prepare(
    'SELECT * FROM agents WHERE (@createdAt IS NULL OR (created_at, handle) > (@createdAt, @handle)) ORDER BY created_at, handle LIMIT +@lim',
  );
  const findTokenRow = db.prepare(LIVE_TOKEN);
  const listTokenRows = db.prepare(
    'SELECT id, handle, created_at, revoked_at FROM tokens WHERE handle = ? ORDER BY created_at',
  );
  const revokeRow = db.prepare('UPDATE tokens SET revoked_at = ? WHERE handle = ? AND id = ? AND revoked_at IS NULL');

  const counters = quotaStatements(db);
  const chargeQuotas = counters.charge;
  const insertAgent = db.transaction((agent: NewAgent, token: { id: string; hash: string }, quotas: QuotaCharge[]) => {
    chargeQuotas(quotas);
    try {
      holdHandle.run(agent.handle);
      insertAgentRow.run({
        endpoint: agent.endpoint ?? null,
        operator: agent.operator ?? null,
        handle: agent.handle,
        agentId: agent.id ?? randomUUID(),
        createdAt: agent.createdAt,
        ...profileColumns(agent),
      });
    } catch (e) {
      if (isConstraintViolation(e)) throw new StoreConflict('handle', `handle ${agent.handle} is taken`);
      throw e;
    }
    insertTokenRow.run(token.id, agent.handle, token.hash, agent.createdAt);
  });

  const insertToken = db.transaction(
    (handle: string, token: { id: string; hash: string }, now: number, replace: boolean) => {
      if (replace) revokeOthers.run(now, handle);
      insertTokenRow.run(token.id, handle, token.hash, now);
    },
  );

  const saveChallenge = db.prepare(
    'INSERT INTO endpoint_challenges (handle, challenge, endpoint, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (handle) DO UPDATE SET challenge = excluded.challenge, endpoint = excluded.endpoint, expires_at = excluded.expires_at',
  );
  const getChallenge = db.prepare('SELECT challenge, endpoint, expires_at FROM endpoint_challenges WHERE handle = ?');
  const dropChallenge = db.prepare('DELETE FROM endpoint_challenges WHERE handle = ?');
  const verify = db.prepare(
    'UPDATE agents SET endpoint = ?, endpoint_rpc_url = ?, endpoint_protocol = ?, endpoint_follow = ?, endpoint_verified_at = ? WHERE handle = ?',
  );
  const forwarding = db.prepare('UPDATE agents SET forwarding = ? WHERE handle = ?');
  const cancelForwards = db.prepare(
    "UPDATE deliveries SET state = 'canceled', lease_owner = NULL, lease_until = NULL WHERE state = 'pending' AND channel = 'forward' AND seq = 1 AND task_id IN (SELECT id FROM tasks WHERE target = ?)",
  );
  const readAgent = (handle: string) => agentFromRow(getAgentRow.get(handle) as AgentRow);
  const writeProfile = db.prepare(
    `UPDATE agents SET name = @name, description = @description, skills = @skills, tags = @tags, input_modes = @input_modes, output_modes = @output_modes,
       search_names = @search_names, search_text = @search_text, search_tags = @search_tags, search_keys = @search_keys WHERE handle = @handle`,
  );
  const updateProfile = db.transaction((handle: string, patch: ProfilePatch) => {
    const row = getAgentRow.get(handle) as AgentRow | undefined;
    if (!row) return undefined;
    const agent = patchedAgent(agentFromRow(row), patch);
    writeProfile.run({ handle, ...profileColumns(agent) });
    return agent;
  });
  const searchByKeys = db.prepare(searchSql('instr', SEARCH_PARAMS));
  const searchByText = db.prepare(SEARCH_BY_TEXT);
  const takeChallenge = db.transaction((handle: string) => {
    const row = getChallenge.get(handle) as { challenge: string; endpoint: string; expires_at: number } | undefined;
    dropChallenge.run(handle);
    return row && { challenge: row.challenge, endpoint: row.endpoint, expiresAt: row.expires_at };
  });
  const getSetting = db.prepare('SELECT value FROM hub_settings WHERE name = ?').pluck();
  const keepSetting = db.prepare('INSERT INTO hub_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING');
  const markVerified = db.transaction((handle: string, endpoint: string, spoken: SpokenInterface, now: number) => {
    verify.run(endpoint, spoken.url, spoken.protocol, spoken.follow, now, handle);
    return readAgent(handle);
  });
  const setForwarding = db.transaction((handle: string, enabled: boolean, quotas: QuotaCharge[]) => {
    chargeQuotas(quotas);
    forwarding.run(enabled ? 1 : 0, handle);
    if (!enabled) cancelForwards.run(handle);
    return readAgent(handle);
  });

  /** Says what changed about `handle` once its write has committed, and passes the write's result on. */
  const announced = <T>(handle: string, change: 'tokens' | 'record', result: T): T => {
    bus.agent(handle, change);
    return result;
  };

  return {
    saveChallenge: async (handle: string, c: EndpointChallenge) =>
      void saveChallenge.run(handle, c.challenge, c.endpoint, c.expiresAt),
    takeChallenge: async (handle: string) => takeChallenge.immediate(handle),
    markEndpointVerified: async (handle: string, endpoint: string, spoken: SpokenInterface, now: number) =>
      announced(handle, 'record', markVerified.immediate(handle, endpoint, spoken, now)),
    setForwarding: async (handle: string, enabled: boolean, quotas: QuotaCharge[]) =>
      announced(handle, 'record', setForwarding.immediate(handle, enabled, quotas)),
    updateProfile: async (handle: string, patch: ProfilePatch) => {
      const agent = updateProfile.immediate(handle, patch);
      return agent && announced(handle, 'record', agent);
    },
    searchAgents: async (query: AgentSearch) => {
      const { words, ...keys } = searchKeys(query);
      if (query.q !== undefined && words.length === 0) return { agents: [], scores: [], hasMore: false };
      const match = matchExpression({ words, tags: [] }, 'AND');
      const rows = (
        words.length ? searchByText.all({ ...keys, match, names: `search_names : (${match})` }) : searchByKeys.all(keys)
      ) as (AgentRow & { score: number })[];
      return foundPage(rows, query.limit);
    },
    adminTokenHash: async () => getSetting.get(ADMIN_TOKEN_HASH) as string | undefined,
    keepAdminTokenHash: async (hash: string) => {
      keepSetting.run(ADMIN_TOKEN_HASH, hash);
      return getSetting.get(ADMIN_TOKEN_HASH) as string;
    },
    insertAgent: async (agent: NewAgent, token: { id: string; hash: string }, quotas: QuotaCharge[] = []) =>
      insertAgent.immediate(agent, token, quotas),
    getAgent: async (handle: string) => {
      const row = getAgentRow.get(handle) as AgentRow | undefined;
      return row && agentFromRow(row);
    },
    getAgentById: async (id: string) => {
      const row = getAgentById.get(id) as AgentRow | undefined;
      return row && agentFromRow(row);
    },
    listAgents: async (query: { limit: number; after?: AgentCursor }) => {
      const rows = agentPage.all({
        createdAt: query.after?.createdAt ?? null,
        handle: query.after?.handle ?? null,
        lim: query.limit + 1,
      }) as AgentRow[];
      return { agents: rows.slice(0, query.limit).map(agentFromRow), hasMore: rows.length > query.limit };
    },
    findToken: async (hash: string, gate?: QuotaGate) => {
      counters.gate(gate); // a closed gate refuses before the token is looked at
      const row = findTokenRow.get(hash) as TokenRow | undefined;
      return row && tokenFromRow(row);
    },
    listTokens: async (handle: string) => (listTokenRows.all(handle) as TokenRow[]).map(tokenFromRow),
    insertToken: async (handle: string, token: { id: string; hash: string }, now: number, replace: boolean) =>
      announced(handle, 'tokens', insertToken.immediate(handle, token, now, replace)),
    revokeToken: async (handle: string, tokenId: string, now: number) => {
      const revoked = revokeRow.run(now, handle, tokenId).changes === 1;
      if (revoked) bus.agent(handle, 'tokens');
      return revoked;
    },
  };
}
