import type { Db } from './database.js';
import type { SigningKeyStore, StoredSigningKey } from '../signing-keys.js';

interface KeyRow {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
}

const NEWEST = 'SELECT kid FROM signing_keys ORDER BY created_at DESC, kid DESC LIMIT 1';

/** The hub's signing keys. One process owns the file, so a plain condition on the newest key settles a rotation. */
export function signingKeyStatements(db: Db): SigningKeyStore {
  const all = db.prepare('SELECT * FROM signing_keys ORDER BY created_at, kid');
  const insertFirst = db.prepare('INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM signing_keys)');
  const insertAfter = db.prepare(`INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) SELECT ?, ?, ?, ? WHERE (${NEWEST}) = ?`);
  const remove = db.prepare('DELETE FROM signing_keys WHERE kid = ?');
  const removeAll = db.transaction((kids: readonly string[]) => kids.forEach((kid) => remove.run(kid)));
  const columns = (k: StoredSigningKey) => [k.kid, JSON.stringify(k.privateJwk), JSON.stringify(k.publicJwk), k.createdAt] as const;
  return {
    loadSigningKeys: async () =>
      (all.all() as KeyRow[]).map((k) => ({ kid: k.kid, privateJwk: JSON.parse(k.private_jwk), publicJwk: JSON.parse(k.public_jwk), createdAt: k.created_at })),
    saveSigningKey: async (key) => void insertFirst.run(...columns(key)),
    addSigningKey: async (key, replacing) => insertAfter.run(...columns(key), replacing).changes === 1,
    deleteSigningKeys: async (kids) => void removeAll.immediate(kids),
  };
}
