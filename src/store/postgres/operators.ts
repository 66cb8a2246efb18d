/**
 * Operators, their tokens and agents' pauses. Nothing is cached: `findOperatorToken` and the
 * pause (a column of the agent's row) are read from the database every time, so a revocation or
 * a pause through any process holds at once on every other. Changes send NOTIFY in their own
 * transaction and are announced here after it commits.
 */
import type { AgentPause, OperatorRecord, OperatorStore } from '../store.js';
import type { Db } from './database.js';
import type { Announcer } from './events.js';
import { AGENT_COLUMNS } from './identity.js';
import { AGENTS } from './notices.js';
import { agentFromRow, tokenFromRow, type AgentRow, type TokenRow } from '../rows.js';

interface OperatorRow {
  handle: string;
  name: string | null;
  created_at: number;
}

const TOKEN_COLUMNS = 'id, operator AS handle, created_at, revoked_at';

export function operatorStatements(db: Db, announcer: Announcer): OperatorStore {
  const notify = `SELECT pg_notify('${AGENTS}', $1)`;

  return {
    /** The handle, the operator and its first token in one statement; a held handle is handles_pkey, StoreConflict('handle'). */
    insertOperator: async (operator: OperatorRecord, token: { id: string; hash: string }): Promise<void> => {
      await db.query(
        `WITH held AS (INSERT INTO handles (handle, holder) VALUES ($1, 'operator') RETURNING handle),
           made AS (INSERT INTO operators (handle, name, created_at) SELECT handle, $2, $3 FROM held RETURNING handle)
         INSERT INTO operator_tokens (id, operator, hash, created_at) SELECT $4, handle, $5, $3 FROM made`,
        [operator.handle, operator.name ?? null, operator.createdAt, token.id, token.hash],
      );
    },

    getOperator: async (handle: string): Promise<OperatorRecord | undefined> => {
      const { rows } = await db.query<OperatorRow>('SELECT handle, name, created_at FROM operators WHERE handle = $1', [
        handle,
      ]);
      const row = rows[0];
      return (
        row &&
        (row.name === null
          ? { handle: row.handle, createdAt: row.created_at }
          : { handle: row.handle, name: row.name, createdAt: row.created_at })
      );
    },

    operatorAgents: async (handle: string): Promise<string[]> =>
      (
        await db.query<{ handle: string }>(
          'SELECT handle FROM agents WHERE operator = $1 ORDER BY created_at, handle',
          [handle],
        )
      ).rows.map((r) => r.handle),

    findOperatorToken: async (hash: string) => {
      const { rows } = await db.query<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM operator_tokens WHERE hash = $1 AND revoked_at IS NULL`,
        [hash],
      );
      return rows[0] && tokenFromRow(rows[0]);
    },

    listOperatorTokens: async (handle: string) =>
      (
        await db.query<TokenRow>(
          `SELECT ${TOKEN_COLUMNS} FROM operator_tokens WHERE operator = $1 ORDER BY created_at, id`,
          [handle],
        )
      ).rows.map(tokenFromRow),

    /** A rotation locks the operator's row first, so two at once (through two processes) leave one live token. */
    insertOperatorToken: async (
      handle: string,
      token: { id: string; hash: string },
      now: number,
      replace: boolean,
    ): Promise<void> => {
      await db.transaction(async (client) => {
        if (replace) {
          await client.query('SELECT 1 FROM operators WHERE handle = $1 FOR UPDATE', [handle]);
          await client.query(
            'UPDATE operator_tokens SET revoked_at = $2, changed_at = muster_now_ms() WHERE operator = $1 AND revoked_at IS NULL',
            [handle, now],
          );
        }
        await client.query('INSERT INTO operator_tokens (id, operator, hash, created_at) VALUES ($1, $2, $3, $4)', [
          token.id,
          handle,
          token.hash,
          now,
        ]);
        await client.query(notify, [announcer.agentNotice(handle, 'tokens')]);
      });
      announcer.agentChanged(handle, 'tokens');
    },

    revokeOperatorToken: async (handle: string, tokenId: string, now: number): Promise<boolean> => {
      const revoked = await db.transaction(async (client) => {
        const { rowCount } = await client.query(
          'UPDATE operator_tokens SET revoked_at = $3, changed_at = muster_now_ms() WHERE operator = $1 AND id = $2 AND revoked_at IS NULL',
          [handle, tokenId, now],
        );
        if (rowCount === 1) await client.query(notify, [announcer.agentNotice(handle, 'tokens')]);
        return rowCount === 1;
      });
      if (revoked) announcer.agentChanged(handle, 'tokens');
      return revoked;
    },

    setPause: async (handle: string, pause: AgentPause | undefined) => {
      const agent = await db.transaction(async (client) => {
        const { rows } = await client.query<AgentRow>(
          `UPDATE agents SET paused_at = $2, paused_by = $3, changed_at = muster_now_ms() WHERE handle = $1 RETURNING ${AGENT_COLUMNS}`,
          [handle, pause?.at ?? null, pause?.by ?? null],
        );
        if (rows[0]) await client.query(notify, [announcer.agentNotice(handle, 'record')]);
        return rows[0] && agentFromRow(rows[0]);
      });
      if (agent) announcer.agentChanged(handle, 'record');
      return agent;
    },
  };
}
