import {
  base64url,
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  FlattenedSign,
  flattenedVerify,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose';

/** One of the hub's signing keys as it is kept in the store. `privateJwk` holds the secret `d`. */
export interface StoredKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
  /** Milliseconds since the epoch; the newest key signs. */
  createdAt: number;
}

/** Where the hub's keys live (a store table in the hub, memory in tests). */
export interface KeyStorage {
  load(): Promise<StoredKey[]>;
  save(key: StoredKey): Promise<void>;
}

/** A public key as published in the JWKS. */
export interface PublishedKey {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

const ALG = 'EdDSA';

/**
 * The hub's signing identity: signs outgoing bodies (push notifications, forwards; later Agent
 * Cards) with an Ed25519 key and publishes the public keys for receivers to check them.
 */
export class Signer {
  private constructor(
    private readonly signingKid: string,
    private readonly signingKey: CryptoKey,
    private readonly published: PublishedKey[],
  ) {}

  /** Loads the stored keys, creating and storing the first key when there is none. */
  static async open(storage: KeyStorage, now: () => number = Date.now): Promise<Signer> {
    let keys = await storage.load();
    if (keys.length === 0) {
      await storage.save(await newKey(now()));
      // Read back rather than trust our copy: the store is the one source of the key set.
      keys = await storage.load();
    }
    if (keys.length === 0) throw new Error('The key storage kept no key after saving one');
    const newest = keys.reduce((a, b) => (b.createdAt > a.createdAt || (b.createdAt === a.createdAt && b.kid > a.kid) ? b : a));
    const signingKey = await importJWK(newest.privateJwk, ALG);
    if (!isCryptoKey(signingKey)) throw new Error(`Stored key ${newest.kid} is not an asymmetric private key`);
    return new Signer(newest.kid, signingKey, keys.map(publicOf));
  }

  get kid(): string {
    return this.signingKid;
  }

  /**
   * A detached JWS (RFC 7515 appendix F) over the exact body bytes: `<protected>..<signature>`.
   * The receiver re-attaches base64url(body) as the payload to verify.
   */
  async signDetached(body: string | Uint8Array): Promise<string> {
    const payload = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const jws = await new FlattenedSign(payload)
      .setProtectedHeader({ alg: ALG, kid: this.signingKid, typ: 'JOSE' })
      .sign(this.signingKey);
    return `${jws.protected}..${jws.signature}`;
  }

  /** The public keys, for `/.well-known/jwks.json`. Never carries private members. */
  jwks(): { keys: PublishedKey[] } {
    return { keys: this.published.map((key) => ({ ...key })) };
  }
}

/**
 * Checks a detached JWS from `signDetached` against a body and a JWKS; resolves to the kid
 * that signed, or rejects. For receivers and tests.
 */
export async function verifyDetached(signature: string, body: string | Uint8Array, jwks: { keys: object[] }): Promise<string> {
  const [protectedHeader, empty, sig, ...rest] = signature.split('.');
  if (protectedHeader === undefined || empty !== '' || sig === undefined || rest.length > 0) {
    throw new Error('Not a detached JWS: expected <protected>..<signature>');
  }
  const payload = base64url.encode(typeof body === 'string' ? new TextEncoder().encode(body) : body);
  const keySet = createLocalJWKSet(jwks as { keys: JWK[] });
  const result = await flattenedVerify({ protected: protectedHeader, payload, signature: sig }, keySet, { algorithms: [ALG] });
  return String(result.protectedHeader?.kid);
}

async function newKey(createdAt: number): Promise<StoredKey> {
  const { privateKey, publicKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return { kid, privateJwk, publicJwk, createdAt };
}

/** Only the public members, whatever the stored JWK holds. */
function publicOf(key: StoredKey): PublishedKey {
  const { kty, crv, x } = key.publicJwk;
  if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string') throw new Error(`Stored key ${key.kid} is not an Ed25519 public key`);
  return { kty, crv, x, kid: key.kid, alg: ALG, use: 'sig' };
}

function isCryptoKey(key: CryptoKey | Uint8Array): key is CryptoKey {
  return !(key instanceof Uint8Array);
}
