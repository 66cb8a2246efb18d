/**
 * Operators: people's accounts that own agents (identity/operators.ts). A store promises: a handle
 * is held once, by an agent or an operator (one namespace, the `handles` table, so two nodes
 * registering the same handle as both cannot both win); an operator token revoked or replaced is
 * refused by `findOperatorToken` at once, on every process; an agent's pause is a column of its
 * row, checked inside every write that opens a task for the agent (TaskWrite.unlessPaused). Operator token changes are announced like an agent's ('tokens').
 */
import type { AgentPause, AgentRecord, TokenRecord } from './identity.js';

export interface OperatorRecord {
  handle: string;
  name?: string;
  createdAt: number;
}

export interface OperatorStore {
  /** The operator with its first token; a handle an agent or operator holds is StoreConflict('handle'). */
  insertOperator(operator: OperatorRecord, token: { id: string; hash: string }): Promise<void>;
  getOperator(handle: string): Promise<OperatorRecord | undefined>;
  /** The handles of the agents the operator owns, in registration order. */
  operatorAgents(handle: string): Promise<string[]>;
  /** The live operator token with this hash, if any (its `handle` is the operator's). */
  findOperatorToken(hash: string): Promise<TokenRecord | undefined>;
  listOperatorTokens(handle: string): Promise<TokenRecord[]>;
  /** Adds a token; with `replace`, revokes every other live token of the operator in the same transaction. */
  insertOperatorToken(
    handle: string,
    token: { id: string; hash: string },
    now: number,
    replace: boolean,
  ): Promise<void>;
  revokeOperatorToken(handle: string, tokenId: string, now: number): Promise<boolean>;
  /** Pauses (or, with undefined, resumes) an agent; the agent as it is after, undefined when there is none. Announced as a record change. */
  setPause(handle: string, pause: AgentPause | undefined): Promise<AgentRecord | undefined>;
}
