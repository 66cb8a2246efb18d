import { z } from 'zod';
import { parseWith } from '../a2a/validate.js';
import { HubError } from '../errors/hub-error.js';
import { StoreConflict, type OperatorRecord, type OperatorStore, type TokenRecord } from '../store/store.js';
import { handleField, HANDLE_PATTERN } from './agents.js';
import type { Caller } from './caller.js';
import { refuseReservedHandle } from './reserved-handles.js';
import { hashToken, newOperatorToken, newTokenId } from './tokens.js';

const creation = z.object({ handle: handleField, name: z.string().trim().min(1).max(100).optional() }).strict();

/** An operator as the admin or the operator itself sees it: the account and the agents it owns. */
export interface OperatorProfile extends OperatorRecord {
  agents: string[];
}

/**
 * Operators: people's accounts, made by the admin, that own the agents they register. Their
 * handles share the agents' rules and namespace (the store holds each handle once). A token is
 * shown once, at creation or rotation, and stored hashed.
 */
export class Operators {
  constructor(
    private readonly store: OperatorStore,
    private readonly clock: () => number = Date.now,
  ) {}

  async create(caller: Caller, body: unknown): Promise<{ operator: OperatorRecord; token: string }> {
    requireAdmin(caller, 'create an operator');
    const input = parseWith(creation, body);
    refuseReservedHandle(input.handle);
    const operator: OperatorRecord = Object.assign({ handle: input.handle }, input.name ? { name: input.name } : {}, {
      createdAt: this.clock(),
    });
    const token = newOperatorToken();
    try {
      await this.store.insertOperator(operator, { id: newTokenId(), hash: hashToken(token) });
    } catch (e) {
      if (e instanceof StoreConflict)
        throw new HubError('HANDLE_TAKEN', `The handle '${input.handle}' is taken`, {
          hint: 'Agents and operators share one namespace: choose another handle',
        });
      throw e;
    }
    return { operator, token };
  }

  async profile(caller: Caller, handle: string): Promise<OperatorProfile> {
    const operator = await this.own(caller, handle);
    return Object.assign({}, operator, { agents: await this.store.operatorAgents(handle) });
  }

  /** A new token for the operator; every older one stops working at once. */
  async rotate(caller: Caller, handle: string): Promise<string> {
    await this.own(caller, handle);
    const token = newOperatorToken();
    await this.store.insertOperatorToken(handle, { id: newTokenId(), hash: hashToken(token) }, this.clock(), true);
    return token;
  }

  async tokens(caller: Caller, handle: string): Promise<TokenRecord[]> {
    await this.own(caller, handle);
    return this.store.listOperatorTokens(handle);
  }

  async revoke(caller: Caller, handle: string, tokenId: string): Promise<void> {
    await this.own(caller, handle);
    if (!(await this.store.revokeOperatorToken(handle, tokenId, this.clock()))) {
      throw new HubError('NOT_FOUND', `No live token '${tokenId}' for operator '${handle}'`, {
        hint: `List them with GET /api/operators/${handle}/tokens`,
      });
    }
  }

  /** The operator, for itself or the admin; anyone else is refused before it learns whether the operator exists. */
  private async own(caller: Caller, handle: string): Promise<OperatorRecord> {
    if (caller.kind !== 'admin' && !(caller.kind === 'operator' && caller.handle === handle)) {
      throw new HubError(
        caller.kind === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN',
        `Only the operator '${handle}' or the admin may do this`,
        {
          hint: 'Send the operator token (--operator-token or MUSTER_OPERATOR_TOKEN in the CLI), or the admin token',
        },
      );
    }
    const operator = HANDLE_PATTERN.test(handle) ? await this.store.getOperator(handle) : undefined;
    if (!operator)
      throw new HubError('NOT_FOUND', `No operator '${handle}' on this hub`, {
        hint: 'The admin creates operators: POST /api/operators',
      });
    return operator;
  }
}

function requireAdmin(caller: Caller, what: string): void {
  if (caller.kind === 'admin') return;
  throw new HubError(caller.kind === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN', `Only the admin may ${what}`, {
    hint: 'Send the admin token (--admin-token or MUSTER_ADMIN_TOKEN in the CLI)',
  });
}
