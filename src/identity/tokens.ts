import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** A new secret: 256 random bits, with a prefix so a leaked token is recognisable in scans. */
export const newToken = (): string => `mst_${randomBytes(32).toString('base64url')}`;

export const newTokenId = (): string => randomUUID();

/** Tokens carry 256 bits of entropy, so a plain SHA-256 is a sufficient one-way hash. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** First 16 hex chars of SHA-256: lets a client check a server before sending the token. */
export const fingerprint = (token: string): string => hashToken(token).slice(0, 16);

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(hashToken(a), 'hex');
  const y = Buffer.from(hashToken(b), 'hex');
  return timingSafeEqual(x, y);
}
