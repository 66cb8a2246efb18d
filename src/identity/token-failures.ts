import type { HubError } from '../errors/hub-error.js';
import { QuotaExceeded, type QuotaCharge, type QuotaGate, type Store } from '../store/store.js';
import type { Quotas } from './quotas.js';
import { bearerToken, OPERATOR_TOKEN_PREFIX } from './tokens.js';

/**
 * Refused bearer tokens (malformed, unknown or revoked), counted per source address in the store,
 * so the count holds across nodes: `token.failures` for any token, and `token.failures.operator`
 * as well for an operator's. Once an address has used up a rule's window, every request from it
 * that carries a token under that rule is refused RATE_LIMITED before its token is looked at, a
 * good token too, until the window ends: otherwise a guess that happened to be right would still
 * be told apart. Loopback is not counted (the rules are `perAddress`). The check costs no
 * statement of its own where the token is checked in the store anyway (see `gate`).
 */
export class TokenFailures {
  constructor(
    private readonly store: Pick<Store, 'quotaUsed' | 'chargeQuotas'>,
    private readonly quotas: Quotas,
    private readonly clock: () => number,
  ) {}

  /**
   * The counters a request carrying `authorization` from `address` goes on only while none is
   * used up (none for loopback, or with rate limits off). The store checks them where it checks
   * the token, before it (QuotaGate): in the token's lookup, or in the request's own statement.
   */
  gate(authorization: string, address: string): QuotaGate {
    return this.charges(authorization, address, this.clock());
  }

  /** Checks the gate now, for a request whose token is checked without the store (the admin's) or not at all (malformed). */
  async admit(gate: QuotaGate): Promise<void> {
    if (gate.length === 0) return;
    const used = await Promise.all(gate.map((c) => this.store.quotaUsed(c.key, c.windowStart)));
    const spent = gate.find((c, i) => used[i]! >= c.limit);
    if (spent) throw this.refusal(new QuotaExceeded(spent.key, spent.limit));
  }

  /** A closed gate as the hub's RATE_LIMITED, with Retry-After. */
  refusal(e: QuotaExceeded): HubError {
    return this.quotas.refusal(e, this.clock());
  }

  /** Counts one refused token against its address, under each of its rules. */
  async refused(authorization: string, address: string): Promise<void> {
    for (const charge of this.charges(authorization, address, this.clock())) {
      // A window already used up (requests racing through admit) has nothing more to count.
      await this.store.chargeQuotas([charge]).catch((e: unknown) => {
        if (!(e instanceof QuotaExceeded)) throw e;
      });
    }
  }

  private charges(authorization: string, address: string, now: number): QuotaCharge[] {
    const operator = bearerToken(authorization)?.startsWith(OPERATOR_TOKEN_PREFIX) ?? false;
    return [
      ...this.quotas.charge('token.failures', address, now),
      ...(operator ? this.quotas.charge('token.failures.operator', address, now) : []),
    ];
  }
}
