import { isConstraintViolation, type Db } from './database.js';
import { StoreConflict, type AgentPause, type EventBus, type OperatorRecord, type OperatorStore } from '../store.js';
import { agentFromRow, tokenFromRow, type AgentRow, type TokenRow } from '../rows.js';

interface OperatorRow {
  handle: string;
  name: string | null;
  created_at: number;
}

const operatorFromRow = (r: OperatorRow): OperatorRecord =>
  r.name === null
    ? { handle: r.handle, createdAt: r.created_at }
    : { handle: r.handle, name: r.name, createdAt: r.created_at };

/** Operators, their tokens, and agents' pauses; token changes and pauses are announced on `bus`. */
export function operatorStatements(db: Db, bus: EventBus): OperatorStore {
  const holdHandle = db.prepare("INSERT INTO handles (handle, holder) VALUES (?, 'operator')");
  const insertRow = db.prepare('INSERT INTO operators (handle, name, created_at) VALUES (?, ?, ?)');
  const insertTokenRow = db.prepare('INSERT INTO operator_tokens (id, operator, hash, created_at) VALUES (?, ?, ?, ?)');
  const revokeAll = db.prepare('UPDATE operator_tokens SET revoked_at = ? WHERE operator = ? AND revoked_at IS NULL');
  const revokeOne = db.prepare(
    'UPDATE operator_tokens SET revoked_at = ? WHERE operator = ? AND id = ? AND revoked_at IS NULL',
  );
  const getRow = db.prepare('SELECT handle, name, created_at FROM operators WHERE handle = ?');
  const agentsOf = db.prepare('SELECT handle FROM agents WHERE operator = ? ORDER BY created_at, handle').pluck();
  const findTokenRow = db.prepare(
    'SELECT id, operator AS handle, created_at, revoked_at FROM operator_tokens WHERE hash = ? AND revoked_at IS NULL',
  );
  const tokenRows = db.prepare(
    'SELECT id, operator AS handle, created_at, revoked_at FROM operator_tokens WHERE operator = ? ORDER BY created_at, id',
  );
  const pause = db.prepare('UPDATE agents SET paused_at = ?, paused_by = ? WHERE handle = ?');
  const getAgentRow = db.prepare('SELECT * FROM agents WHERE handle = ?');

  const insertOperator = db.transaction((operator: OperatorRecord, token: { id: string; hash: string }) => {
    try {
      holdHandle.run(operator.handle);
    } catch (e) {
      if (isConstraintViolation(e)) throw new StoreConflict('handle', `handle ${operator.handle} is taken`);
      throw e;
    }
    insertRow.run(operator.handle, operator.name ?? null, operator.createdAt);
    insertTokenRow.run(token.id, operator.handle, token.hash, operator.createdAt);
  });
  const insertToken = db.transaction(
    (handle: string, token: { id: string; hash: string }, now: number, replace: boolean) => {
      if (replace) revokeAll.run(now, handle);
      insertTokenRow.run(token.id, handle, token.hash, now);
    },
  );
  const setPause = db.transaction((handle: string, p: AgentPause | undefined) => {
    if (pause.run(p?.at ?? null, p?.by ?? null, handle).changes === 0) return undefined;
    return agentFromRow(getAgentRow.get(handle) as AgentRow);
  });

  return {
    insertOperator: async (operator: OperatorRecord, token: { id: string; hash: string }) =>
      insertOperator.immediate(operator, token),
    getOperator: async (handle: string) => {
      const row = getRow.get(handle) as OperatorRow | undefined;
      return row && operatorFromRow(row);
    },
    operatorAgents: async (handle: string) => agentsOf.all(handle) as string[],
    findOperatorToken: async (hash: string) => {
      const row = findTokenRow.get(hash) as TokenRow | undefined;
      return row && tokenFromRow(row);
    },
    listOperatorTokens: async (handle: string) => (tokenRows.all(handle) as TokenRow[]).map(tokenFromRow),
    insertOperatorToken: async (handle: string, token: { id: string; hash: string }, now: number, replace: boolean) => {
      insertToken.immediate(handle, token, now, replace);
      bus.agent(handle, 'tokens');
    },
    revokeOperatorToken: async (handle: string, tokenId: string, now: number) => {
      const revoked = revokeOne.run(now, handle, tokenId).changes === 1;
      if (revoked) bus.agent(handle, 'tokens');
      return revoked;
    },
    setPause: async (handle: string, p: AgentPause | undefined) => {
      const agent = setPause.immediate(handle, p);
      if (agent) bus.agent(handle, 'record');
      return agent;
    },
  };
}
