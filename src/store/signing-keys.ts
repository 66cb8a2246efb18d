/**
 * The hub's signing keys (Ed25519 JWKs; delivery/signing.ts uses them). The newest key (by
 * created_at, then kid) signs; a rotation adds a newer one, and older keys stay until their grace
 * is over, so what they signed still verifies. Several processes may rotate at once: a rotation
 * stores its key only while the key it replaces is still the newest, so exactly one wins.
 */

export interface StoredSigningKey {
  kid: string;
  privateJwk: object;
  publicJwk: object;
  createdAt: number;
}

export interface SigningKeyStore {
  /** Every key kept, oldest first. */
  loadSigningKeys(): Promise<StoredSigningKey[]>;
  /** Stores the hub's first key unless there is a key already (the first writer wins across nodes). */
  saveSigningKey(key: StoredSigningKey): Promise<void>;
  /** Stores a rotation's key only if `replacing` is still the newest key; false when another rotation came first. */
  addSigningKey(key: StoredSigningKey, replacing: string): Promise<boolean>;
  /** Forgets these keys (retired ones whose grace is over). */
  deleteSigningKeys(kids: readonly string[]): Promise<void>;
}
