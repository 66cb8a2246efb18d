import { LRUCache } from 'lru-cache';
import { HubError } from '../errors/hub-error.js';
import {
  QuotaExceeded,
  type IdentityStore,
  type OperatorStore,
  type QuotaGate,
  type ReceiptStore,
  type Store,
  type TokenRecord,
} from '../store/store.js';
import type { Quotas } from './quotas.js';
import { ANONYMOUS, tokenOf, uncheckedToken, type Caller } from './caller.js';
import { TokenFailures } from './token-failures.js';
import { bearerToken, hashIs, hashToken, OPERATOR_TOKEN_PREFIX, sameSecret, type TokenMemo } from './tokens.js';

/** Token owners remembered, at most; the least recently used go first. */
const KNOWN_OWNERS = 10_000;

/**
 * The parts of the store authentication reads: agents' and operators' live tokens, the agents an
 * operator owns, the quota counters that count refused tokens, and whether the store is shared.
 */
type AuthenticationStore = Pick<IdentityStore, 'findToken'> &
  Pick<OperatorStore, 'findOperatorToken' | 'operatorAgents'> &
  Pick<ReceiptStore, 'quotaUsed' | 'chargeQuotas'> &
  Pick<Store, 'exclusive' | 'events'>;

/** Who a bearer token belongs to, whether it is still live, and who is told when tokens change. */
export class Authentication {
  /**
   * Whose each recently seen token is, by its hash, when the store is shared: a fact for good (a
   * hash names one agent), so a request's token is checked once, in the request's own statement,
   * instead of in a round trip of its own first (see TokenCheck).
   */
  private readonly owners: LRUCache<string, string> | undefined;
  private readonly failures: TokenFailures;
  /** The admin token's hash as bytes, decoded once: every request's token hash is compared with it. */
  private readonly adminHashBytes: Buffer;

  constructor(
    private readonly store: AuthenticationStore,
    /** The admin token's hash: a node may know only the hash, when another node created the token. */
    adminTokenHash: string,
    quotas: Quotas,
    clock: () => number = Date.now,
  ) {
    // An exclusive store caches live tokens itself (store/cached), so every check is already local.
    this.owners = store.exclusive ? undefined : new LRUCache({ max: KNOWN_OWNERS });
    this.failures = new TokenFailures(store, quotas, clock);
    this.adminHashBytes = Buffer.from(adminTokenHash, 'hex');
  }

  /**
   * Reads `Authorization`. No header: anonymous. An address whose refused tokens used up their
   * limit: 429, before the token is looked at (token-failures.ts). A header that does not name a
   * live token: 401. A token whose owner is known already comes back still to be checked (see
   * TokenCheck): the request checks it in its own statement, or `confirm` does.
   */
  async authenticate(authorization: string | undefined, address: string, memo?: TokenMemo): Promise<Caller> {
    if (authorization === undefined || authorization === '') return ANONYMOUS;
    const gate = this.failures.gate(authorization, address);
    const token = bearerToken(authorization);
    if (token === undefined) {
      await this.failures.admit(gate);
      throw new HubError('UNAUTHENTICATED', "The Authorization header must be 'Bearer <token>'");
    }
    const { hash, admin } = this.hashOf(token, memo);
    if (admin) {
      await this.failures.admit(gate);
      return { kind: 'admin' };
    }
    if (token.startsWith(OPERATOR_TOKEN_PREFIX)) {
      await this.failures.admit(gate);
      return this.operatorOf(hash);
    }
    const owner = this.owners?.get(hash);
    if (owner !== undefined)
      return { kind: 'agent', handle: owner, token: { hash, checked: false, ...(gate.length ? { gate } : {}) } };
    const record = await this.findToken(hash, gate);
    if (!record) throw notLive();
    this.owners?.set(hash, record.handle);
    return { kind: 'agent', handle: record.handle, token: { hash, checked: true } };
  }

  /** The token's hash and whether it is the admin's: from `memo` when it holds this token, else worked out and kept there. */
  private hashOf(token: string, memo: TokenMemo | undefined): { hash: string; admin: boolean } {
    if (memo && sameSecret(memo.token, token)) return memo;
    const hash = hashToken(token);
    const admin = hashIs(hash, this.adminHashBytes);
    if (memo) Object.assign(memo, { token, hash, admin });
    return { hash, admin };
  }

  /** Counts a request refused for its token (answered 401) against the client's address. */
  tokenRefused(authorization: string, address: string): Promise<void> {
    return this.failures.refused(authorization, address);
  }

  /**
   * The operator a token names, checked live now (an operator's requests are few, and its token
   * is never checked inside a task statement), with the agents it owns as the store has them now.
   */
  private async operatorOf(hash: string): Promise<Caller> {
    const record = await this.store.findOperatorToken(hash);
    if (!record) throw notLive();
    const agents = await this.store.operatorAgents(record.handle);
    return { kind: 'operator', handle: record.handle, agents, token: { hash, checked: true } };
  }

  /**
   * Whether the token `caller` came with is still live, asked again now. A token notice is a hint
   * that may repeat (a node back from a lost LISTEN connection announces the last seconds' changes
   * again), so a stream is closed only when its own token is gone; one whose token is unknown, too.
   */
  async holdsLiveToken(caller: Caller): Promise<boolean> {
    const hash = tokenOf(caller)?.hash;
    if (hash === undefined) return false;
    const live = caller.kind === 'operator' ? this.store.findOperatorToken(hash) : this.store.findToken(hash);
    return (await live) !== undefined;
  }

  /** Checks the caller's token now, unless something did already: 401 when it is no longer live. */
  async confirm(caller: Caller): Promise<void> {
    const token = uncheckedToken(caller);
    if (!token) return;
    if (!(await this.findToken(token.hash, token.gate))) throw notLive();
    token.checked = true;
  }

  /** The live token with this hash, unless its gate is closed (then RATE_LIMITED). */
  private findToken(hash: string, gate: QuotaGate | undefined): Promise<TokenRecord | undefined> {
    return this.store.findToken(hash, gate).catch((e: unknown) => {
      throw e instanceof QuotaExceeded ? this.failures.refusal(e) : e;
    });
  }

  /**
   * Tells `watch` whenever an agent's or operator's tokens are rotated or revoked, through any
   * process on the database (the streams opened with a token gone close then).
   */
  onTokensChanged(watch: (handle: string) => void): void {
    this.store.events.onAgent((handle, change) => change === 'tokens' && watch(handle));
  }
}

/** A token that names no live token: never issued, revoked, or rotated away. */
export const notLive = () =>
  new HubError('UNAUTHENTICATED', 'The bearer token is not valid or has been revoked', {
    hint: 'Send the token you got when you registered (POST /api/agents) or rotated it',
  });
