import { describe, expect, it } from 'vitest';
import { base64url, createLocalJWKSet, decodeProtectedHeader, flattenedVerify, type JWK } from 'jose';
import { Signer, verifyDetached, type KeyStorage, type StoredKey } from './signing.js';
import type { StoredSigningKey } from '../store/signing-keys.js';

class MemoryKeyStorage implements KeyStorage {
  readonly keys: StoredKey[] = [];
  async loadSigningKeys(): Promise<StoredKey[]> {
    return this.keys.map((key) => structuredClone(key));
  }
  async saveSigningKey(key: StoredSigningKey): Promise<void> {
    if (this.keys.length === 0) this.keys.push(structuredClone(key) as StoredKey);
  }
  async addSigningKey(key: StoredSigningKey, replacing: string): Promise<boolean> {
    const newest = [...this.keys].sort((a, b) => b.createdAt - a.createdAt || (b.kid > a.kid ? 1 : -1))[0];
    if (newest?.kid !== replacing) return false;
    this.keys.push(structuredClone(key) as StoredKey);
    return true;
  }
  async deleteSigningKeys(kids: readonly string[]): Promise<void> {
    const kept = this.keys.filter((k) => !kids.includes(k.kid));
    this.keys.splice(0, this.keys.length, ...kept);
  }
}

/** Verifies the way an outside receiver would: jose, the published JWKS, the body re-attached as payload. */
async function verifyWithJose(signature: string, body: string, jwks: { keys: object[] }) {
  const [protectedHeader, , sig] = signature.split('.');
  return flattenedVerify(
    { protected: protectedHeader!, payload: base64url.encode(body), signature: sig! },
    createLocalJWKSet(jwks as { keys: JWK[] }),
    { algorithms: ['EdDSA'] },
  );
}

describe('Signer', () => {
  it('creates and stores one Ed25519 key on first open', async () => {
    const storage = new MemoryKeyStorage();
    const signer = await Signer.open(storage);
    expect(storage.keys).toHaveLength(1);
    expect(storage.keys[0]!.kid).toBe(signer.kid);
    expect(storage.keys[0]!.privateJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(typeof storage.keys[0]!.privateJwk.d).toBe('string');
  });

  it('signs a detached JWS over the exact body that jose verifies with the published JWKS', async () => {
    const signer = await Signer.open(new MemoryKeyStorage());
    const body = JSON.stringify({ statusUpdate: { taskId: 't-1', status: { state: 'TASK_STATE_WORKING' } } });
    const signature = await signer.signDetached(body);

    const parts = signature.split('.');
    expect(parts).toHaveLength(3);
    expect(parts[1]).toBe('');
    expect(decodeProtectedHeader(signature)).toEqual({ alg: 'EdDSA', kid: signer.kid, typ: 'JOSE' });

    const result = await verifyWithJose(signature, body, signer.jwks());
    expect(new TextDecoder().decode(result.payload)).toBe(body);
    expect(await verifyDetached(signature, body, signer.jwks())).toBe(signer.kid);
  });

  it('signs bytes and strings alike', async () => {
    const signer = await Signer.open(new MemoryKeyStorage());
    const body = 'héllo';
    const signature = await signer.signDetached(new TextEncoder().encode(body));
    await expect(verifyWithJose(signature, body, signer.jwks())).resolves.toBeDefined();
  });

  it('a changed body fails to verify', async () => {
    const signer = await Signer.open(new MemoryKeyStorage());
    const signature = await signer.signDetached('{"a":1}');
    await expect(verifyWithJose(signature, '{"a":2}', signer.jwks())).rejects.toThrow(/signature verification failed/);
    await expect(verifyDetached(signature, '{"a":1} ', signer.jwks())).rejects.toThrow();
  });

  it('a signature from another hub does not verify against this JWKS', async () => {
    const ours = await Signer.open(new MemoryKeyStorage());
    const theirs = await Signer.open(new MemoryKeyStorage());
    const signature = await theirs.signDetached('{}');
    await expect(verifyWithJose(signature, '{}', ours.jwks())).rejects.toThrow();
  });

  it('reopening on the same storage reuses the same key', async () => {
    const storage = new MemoryKeyStorage();
    const first = await Signer.open(storage);
    const signature = await first.signDetached('body');
    const second = await Signer.open(storage);
    expect(second.kid).toBe(first.kid);
    expect(storage.keys).toHaveLength(1);
    await expect(verifyWithJose(signature, 'body', second.jwks())).resolves.toBeDefined();
  });

  it('signs with the newest key and publishes all of them', async () => {
    const storage = new MemoryKeyStorage();
    const old = await Signer.open(storage, { now: () => 1_000 });
    // Put a second, newer key into the shared storage, as a rotation would.
    const rotated = new MemoryKeyStorage();
    await Signer.open(rotated, { now: () => 2_000 });
    storage.keys.push(rotated.keys[0]!);
    const reopened = await Signer.open(storage, { now: () => 3_000 });
    expect(reopened.kid).toBe(rotated.keys[0]!.kid);
    expect(reopened.kid).not.toBe(old.kid);
    expect(
      reopened
        .jwks()
        .keys.map((k) => k.kid)
        .sort(),
    ).toEqual([old.kid, rotated.keys[0]!.kid].sort());
  });

  it('publishes public keys only, with kid, alg and use', async () => {
    const signer = await Signer.open(new MemoryKeyStorage());
    const { keys } = signer.jwks();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.any(String),
      kid: signer.kid,
      alg: 'EdDSA',
      use: 'sig',
    });
    expect(JSON.stringify(signer.jwks())).not.toMatch(/"d"/);
  });

  it('does not publish a private member even if the stored public JWK carries one', async () => {
    const storage = new MemoryKeyStorage();
    await Signer.open(storage);
    storage.keys[0]!.publicJwk = { ...storage.keys[0]!.privateJwk };
    const reopened = await Signer.open(storage);
    expect(reopened.jwks().keys[0]).not.toHaveProperty('d');
  });
  it('rotates: the new key signs, the old one stays published through its grace, then is dropped', async () => {
    const storage = new MemoryKeyStorage();
    let now = 1_000;
    const signer = await Signer.open(storage, { now: () => now, graceMs: 10_000 });
    const first = signer.kid;
    const before = await signer.signDetached('body');
    now = 2_000;
    const { kid, replaced } = await signer.rotate();
    expect(replaced).toBe(first);
    expect(signer.kid).toBe(kid);
    expect(kid).not.toBe(first);
    expect(await verifyDetached(await signer.signDetached('body'), 'body', signer.jwks())).toBe(kid);
    expect(await verifyDetached(before, 'body', signer.jwks())).toBe(first);
    expect(signer.keys).toEqual([
      { kid: first, createdAt: 1_000, retiredAt: 2_000, publishedUntil: 12_000 },
      { kid, createdAt: 2_000 },
    ]);
    now = 12_000;
    expect(signer.jwks().keys.map((k) => k.kid)).toEqual([kid]);
    await expect(verifyDetached(before, 'body', signer.jwks())).rejects.toThrow();
    // The next rotation forgets the expired key in the store too.
    await signer.rotate();
    expect(storage.keys.map((k) => k.kid)).not.toContain(first);
    expect(storage.keys.map((k) => k.kid)).toContain(kid);
  });

  it('a rotation never makes a key older than the one it replaces, whatever the clock says', async () => {
    let now = 5_000;
    const signer = await Signer.open(new MemoryKeyStorage(), { now: () => now });
    now = 1_000;
    const { kid } = await signer.rotate();
    expect(signer.kid).toBe(kid);
    expect(signer.keys[1]).toMatchObject({ kid, createdAt: 5_001 });
  });

  it('two signers on one storage: a rotation through one is used by the other after a refresh', async () => {
    const storage = new MemoryKeyStorage();
    const a = await Signer.open(storage);
    const b = await Signer.open(storage);
    const { kid } = await a.rotate();
    expect(b.kid).not.toBe(kid);
    await b.refresh();
    expect(b.kid).toBe(kid);
    // And a rotation through b now replaces a's key, not the one b first read.
    const second = await b.rotate();
    expect(second.replaced).toBe(kid);
  });
});
