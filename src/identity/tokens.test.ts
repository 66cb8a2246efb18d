import { describe, expect, it } from 'vitest';
import { hashIs, hashToken, newToken, sameSecret } from './tokens.js';

describe('hashIs', () => {
  it("matches a token's hash against the expected bytes, and no other hash", () => {
    const admin = newToken();
    const adminBytes = Buffer.from(hashToken(admin), 'hex');
    const other = hashToken(newToken());
    expect(hashIs(hashToken(admin), adminBytes)).toBe(true);
    expect(hashIs(other, adminBytes)).toBe(false);
    expect(hashIs(hashToken(admin), adminBytes)).toBe(true); // the kept buffer holds nothing over
  });

  it('refuses a hash that is not 32 bytes of hex', () => {
    const bytes = Buffer.from(hashToken(newToken()), 'hex');
    expect(hashIs(bytes.toString('hex').slice(0, 62), bytes)).toBe(false);
    expect(hashIs('', bytes)).toBe(false);
  });
});

describe('sameSecret', () => {
  it('is true for the same token only: not for one that differs in its last character, or in its length', () => {
    const token = newToken();
    expect(sameSecret(token, `${token}`)).toBe(true);
    expect(sameSecret(token, `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`)).toBe(false);
    expect(sameSecret(token, token.slice(0, -1))).toBe(false);
    expect(sameSecret('', token)).toBe(false);
  });
});
