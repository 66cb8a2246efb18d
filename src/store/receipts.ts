/**
 * What a write proves and pays for. A receipt keeps the answer to a keyed request for a day, so
 * a retry (through any node) gets the first answer; a quota charge counts a use in a fixed window.
 * Both are written in the transaction of the write they belong to: a refused write leaves no
 * receipt and uses no quota. A store promises that two writes with the same receipt key never
 * both stand, and that a window's count never passes its limit, whichever process writes.
 */

export interface Receipt {
  scope: string;
  key: string;
  /** Hash of the request, so a reused key with another request is told apart from a retry. */
  fingerprint: string;
  result: unknown;
}

export interface QuotaCharge {
  key: string;
  /** Start of the counting window; HOLD_WINDOW for a count of things held at once (open tasks). */
  windowStart: number;
  limit: number;
  /** 1 by default; -1 gives a hold back (never below zero). */
  amount?: number;
}

/**
 * Counters a request goes on only while none of them has used up its limit (the refused tokens of
 * its client's address, identity/token-failures.ts): checked where its token is checked, first,
 * so a request it refuses learns nothing of its token (QuotaExceeded, nothing read or written).
 */
export type QuotaGate = readonly QuotaCharge[];

/** The window of quotas that count what is held at once rather than uses per period; never pruned. */
export const HOLD_WINDOW = 0;

export interface ReceiptStore {
  getReceipt(scope: string, key: string): Promise<Receipt | undefined>;
  /** What a quota window has counted so far (0 when nothing yet): a look, not a charge. */
  quotaUsed(key: string, windowStart: number): Promise<number>;
  /**
   * Counts charges that pay for no write (a refused token), in a transaction of their own:
   * QuotaExceeded, and nothing counted, when one would go over its limit.
   */
  chargeQuotas(charges: readonly QuotaCharge[]): Promise<void>;
}
