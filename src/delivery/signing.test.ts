import { describe, expect, it } from 'vitest';
import { base64url, createLocalJWKSet, decodeProtectedHeader, flattenedVerify, type JWK } from 'jose';
import { Signer, verifyDetached, type KeyStorage, type StoredKey } from './signing.js';

class MemoryKeyStorage implements KeyStorage {
  readonly keys: StoredKey[] = [];
  async load(): Promise<StoredKey[]> {
    return this.keys.map((key) => structuredClone(key));
  }
  async save(key: StoredKey): Promise<void> {
    this.keys.push(structuredClone(key));
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
    const old = await Signer.open(storage, () => 1_000);
    // Put a second, newer key into the shared storage, as a rotation would.
    const rotated = new MemoryKeyStorage();
    await Signer.open(rotated, () => 2_000);
    storage.keys.push(rotated.keys[0]!);
    const reopened = await Signer.open(storage);
    expect(reopened.kid).toBe(rotated.keys[0]!.kid);
    expect(reopened.kid).not.toBe(old.kid);
    expect(reopened.jwks().keys.map((k) => k.kid).sort()).toEqual([old.kid, rotated.keys[0]!.kid].sort());
  });

  it('publishes public keys only, with kid, alg and use', async () => {
    const signer = await Signer.open(new MemoryKeyStorage());
    const { keys } = signer.jwks();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: signer.kid, alg: 'EdDSA', use: 'sig' });
    expect(JSON.stringify(signer.jwks())).not.toMatch(/"d"/);
  });

  it('does not publish a private member even if the stored public JWK carries one', async () => {
    const storage = new MemoryKeyStorage();
    await Signer.open(storage);
    storage.keys[0]!.publicJwk = { ...storage.keys[0]!.privateJwk };
    const reopened = await Signer.open(storage);
    expect(reopened.jwks().keys[0]).not.toHaveProperty('d');
  });
});
