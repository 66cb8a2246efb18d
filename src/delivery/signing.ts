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
import type { SigningKeyStore, StoredSigningKey } from '../store/signing-keys.js';
import { DEFAULT_GRACE_DAYS } from './defaults.js';

/** One of the hub's signing keys as it is kept in the store. `privateJwk` holds the secret `d`. */
export interface StoredKey extends StoredSigningKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Where the hub's keys live: the store's signing-key part (memory in tests). */
export type KeyStorage = SigningKeyStore;

/** A public key as published in the JWKS. */
export interface PublishedKey {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** A key's place in the rotation, for the admin: when it began, when a newer one took over, until when it is published. */
export interface KeyStatus {
  kid: string;
  createdAt: number;
  retiredAt?: number;
  publishedUntil?: number;
}

export interface SignerOptions {
  /** How long a replaced key stays in the JWKS (ms); 30 days unless told. */
  graceMs?: number;
  now?: () => number;
  /**
   * Set when other processes share the store: the keys are read again this often, and before each
   * `currentJwks`, so a rotation through another node is used here too.
   */
  refreshMs?: number;
}

const ALG = 'EdDSA';
const DAY_MS = 86_400_000;

/** What one read of the store settles: the key that signs, and the keys still published. */
interface KeyState {
  kid: string;
  key: CryptoKey;
  published: PublishedKey[];
  statuses: KeyStatus[];
}

/**
 * The hub's signing identity: signs outgoing bodies (push notifications, forwards) and Agent
 * Cards with an Ed25519 key, and publishes the public keys for receivers to check them. The newest
 * stored key signs; `rotate` adds a newer one. A replaced key stays published for the grace period
 * and is forgotten after. On a shared store, `refresh` picks up a rotation made by another node.
 */
export class Signer {
  private reading: Promise<void> | undefined;
  private readonly refreshing: NodeJS.Timeout | undefined;

  private constructor(
    private readonly storage: KeyStorage,
    private readonly graceMs: number,
    private readonly now: () => number,
    private state: KeyState,
    private readonly shared: boolean,
    refreshMs: number | undefined,
  ) {
    // A failed read keeps the keys last read; the next one tries again.
    if (refreshMs !== undefined)
      this.refreshing = setInterval(() => void this.refresh().catch(() => {}), refreshMs).unref();
  }

  /** Loads the stored keys, creating and storing the first key when there is none. */
  static async open(storage: KeyStorage, options: SignerOptions = {}): Promise<Signer> {
    const now = options.now ?? Date.now;
    const graceMs = options.graceMs ?? DEFAULT_GRACE_DAYS * DAY_MS;
    let keys = await storage.loadSigningKeys();
    if (keys.length === 0) {
      await storage.saveSigningKey(await newKey(now()));
      // Read back rather than trust our copy: the store is the one source of the key set.
      keys = await storage.loadSigningKeys();
    }
    if (keys.length === 0) throw new Error('The key storage kept no key after saving one');
    const state = await settle(keys as StoredKey[], undefined, graceMs);
    return new Signer(storage, graceMs, now, state, options.refreshMs !== undefined, options.refreshMs);
  }

  /** Stops the re-reading. */
  close(): void {
    clearInterval(this.refreshing);
  }

  /** The id of the key that signs now. */
  get kid(): string {
    return this.state.kid;
  }

  /** Each kept key, oldest first. */
  get keys(): KeyStatus[] {
    return this.state.statuses.map((status) => ({ ...status }));
  }

  /** Re-reads the keys from the store (another node may have rotated); calls made meanwhile share the read. */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /**
   * Makes a new key the signing key and forgets keys whose grace is over. If another node rotated
   * at the same moment, its key is the newer one and this one is tried again on top of it.
   */
  async rotate(): Promise<{ kid: string; replaced: string }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const keys = (await this.storage.loadSigningKeys()) as StoredKey[];
      const current = newest(keys);
      // Never older than the key it replaces, whatever this node's clock says.
      const key = await newKey(Math.max(this.now(), current.createdAt + 1));
      if (!(await this.storage.addSigningKey(key, current.kid))) continue;
      const expired = statusesOf([...keys, key], this.graceMs).filter(
        (s) => s.publishedUntil !== undefined && s.publishedUntil <= this.now(),
      );
      await this.storage.deleteSigningKeys(expired.map((s) => s.kid));
      await this.read();
      return { kid: key.kid, replaced: current.kid };
    }
    throw new Error('The signing keys kept changing during the rotation; try again');
  }

  /**
   * A detached JWS (RFC 7515 appendix F) over the exact body bytes: `<protected>..<signature>`.
   * The receiver re-attaches base64url(body) as the payload to verify.
   */
  async signDetached(body: string | Uint8Array): Promise<string> {
    const jws = await this.sign(body);
    return `${jws.protected}..${jws.signature}`;
  }

  /** A flattened JWS over `payload` (the payload itself left out), `jku` naming the JWKS in the protected header. */
  async sign(payload: string | Uint8Array, jku?: string): Promise<{ protected: string; signature: string }> {
    const { kid, key } = this.state;
    const bytes = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
    const jws = await new FlattenedSign(bytes)
      .setProtectedHeader({ alg: ALG, typ: 'JOSE', kid, ...(jku ? { jku } : {}) })
      .sign(key);
    return { protected: jws.protected!, signature: jws.signature };
  }

  /** The JWKS as the store holds it now: read again first on a shared store (the last keys read if that fails). */
  async currentJwks(): Promise<{ keys: PublishedKey[] }> {
    if (this.shared) await this.refresh().catch(() => {});
    return this.jwks();
  }

  /** The public keys last read, for `/.well-known/jwks.json`. Never carries private members. */
  jwks(): { keys: PublishedKey[] } {
    const now = this.now();
    const live = new Set(
      this.state.statuses.filter((s) => s.publishedUntil === undefined || s.publishedUntil > now).map((s) => s.kid),
    );
    return { keys: this.state.published.filter((key) => live.has(key.kid)).map((key) => ({ ...key })) };
  }

  private async read(): Promise<void> {
    const keys = (await this.storage.loadSigningKeys()) as StoredKey[];
    if (keys.length > 0) this.state = await settle(keys, this.state, this.graceMs);
  }
}

/**
 * Checks a detached JWS from `signDetached` against a body and a JWKS; resolves to the kid
 * that signed, or rejects. For receivers and tests.
 */
export async function verifyDetached(
  signature: string,
  body: string | Uint8Array,
  jwks: { keys: object[] },
): Promise<string> {
  const [protectedHeader, empty, sig, ...rest] = signature.split('.');
  if (protectedHeader === undefined || empty !== '' || sig === undefined || rest.length > 0) {
    throw new Error('Not a detached JWS: expected <protected>..<signature>');
  }
  const payload = base64url.encode(typeof body === 'string' ? new TextEncoder().encode(body) : body);
  const keySet = createLocalJWKSet(jwks as { keys: JWK[] });
  const result = await flattenedVerify({ protected: protectedHeader, payload, signature: sig }, keySet, {
    algorithms: [ALG],
  });
  return String(result.protectedHeader?.kid);
}

const newer = (a: StoredSigningKey, b: StoredSigningKey) =>
  b.createdAt > a.createdAt || (b.createdAt === a.createdAt && b.kid > a.kid);
const newest = <K extends StoredSigningKey>(keys: K[]): K => keys.reduce((a, b) => (newer(a, b) ? b : a));

/** Each key's place: a key is retired when the next newer one was made, and published for the grace after that. */
function statusesOf(keys: StoredSigningKey[], graceMs: number): KeyStatus[] {
  const ordered = [...keys].sort((a, b) => (newer(a, b) ? -1 : newer(b, a) ? 1 : 0));
  return ordered.map((key, i) => {
    const successor = ordered[i + 1];
    return successor
      ? {
          kid: key.kid,
          createdAt: key.createdAt,
          retiredAt: successor.createdAt,
          publishedUntil: successor.createdAt + graceMs,
        }
      : { kid: key.kid, createdAt: key.createdAt };
  });
}

/** The state a set of stored keys gives; the private key is imported again only when the signing key changed. */
async function settle(keys: StoredKey[], previous: KeyState | undefined, graceMs: number): Promise<KeyState> {
  const current = newest(keys);
  let key = previous?.kid === current.kid ? previous.key : undefined;
  if (!key) {
    const imported = await importJWK(current.privateJwk, ALG);
    if (!isCryptoKey(imported)) throw new Error(`Stored key ${current.kid} is not an asymmetric private key`);
    key = imported;
  }
  return { kid: current.kid, key, published: keys.map(publicOf), statuses: statusesOf(keys, graceMs) };
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
  if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string')
    throw new Error(`Stored key ${key.kid} is not an Ed25519 public key`);
  return { kty, crv, x, kid: key.kid, alg: ALG, use: 'sig' };
}

function isCryptoKey(key: CryptoKey | Uint8Array): key is CryptoKey {
  return !(key instanceof Uint8Array);
}
