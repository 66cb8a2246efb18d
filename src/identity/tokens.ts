import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** Agents' (and the generated admin) tokens start with this, so a leaked one is recognisable in scans (and in screening). */
export const TOKEN_PREFIX = 'mst_';

/** Operators' tokens start with this instead: a person's account, told apart from an agent's at a glance (and by authenticate); refused ones have a rate limit of their own. */
export const OPERATOR_TOKEN_PREFIX = 'mso_';

/** A new operator token: 256 random bits, with the operator prefix. */
export const newOperatorToken = (): string => `${OPERATOR_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;

/** A new secret: 256 random bits, with the prefix. */
export const newToken = (): string => `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;

/** A new admin token: 256 random bits, told apart from agents' tokens by its prefix. */
export const newAdminToken = (): string => `${TOKEN_PREFIX}admin_${randomBytes(32).toString('base64url')}`;

export const newTokenId = (): string => randomUUID();

/**
 * Tokens carry 256 bits of entropy, so a plain SHA-256 is a sufficient one-way hash. Every request
 * with a token hashes it: the one-shot digest makes no Hash object (twice as fast as createHash).
 */
export const hashToken = (token: string): string => hash('sha256', token, 'hex');

/** First 16 hex chars of SHA-256: lets a client check a server before sending the token. */
export const fingerprint = (token: string): string => hashToken(token).slice(0, 16);

/** The bytes of the hash being checked, decoded into one buffer kept for it: every request's token is checked, and so allocates nothing. */
const checkedHash = Buffer.alloc(32);

/** Constant-time check that a token hash (hex) is the one whose bytes are `expected` (decoded once, by the caller). */
export const hashIs = (hash: string, expected: Buffer): boolean =>
  checkedHash.write(hash, 'hex') === checkedHash.length && timingSafeEqual(checkedHash, expected);

/**
 * One connection's last token, its hash and whether it is the admin's: a keep-alive client sends
 * the same token with every request, and hashing it and comparing the hash with the admin's were a
 * few µs of each (several per cent of a GetTask). The door keeps one per connection, so the raw
 * token lives as long as the connection that sent it, and no longer.
 */
export interface TokenMemo {
  token: string;
  hash: string;
  admin: boolean;
}

export const newTokenMemo = (): TokenMemo => ({ token: '', hash: '', admin: false });

/** Whether two secrets are the same string, in a time that depends on their lengths alone. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let differ = 0;
  for (let i = 0; i < a.length; i++) differ |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return differ === 0;
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header. */
export const bearerToken = (authorization: string): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
