import type { Db } from './database.js';
import { NEWEST_SIGNING_KEY, signingKeyFromRow, type SigningKeyRow } from '../rows.js';
import type { SigningKeyStore, StoredSigningKey } from '../signing-keys.js';

/** The hub's signing keys. One process owns the file, so a plain condition on the newest key settles a rotation. */
export function signingKeyStatements(db: Db): SigningKeyStore {
  const all = db.prepare('SELECT * FROM signing_keys ORDER BY created_at, kid');
  const insertFirst = db.prepare(
    'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM signing_keys)',
  );
  const insertAfter = db.prepare(
    `INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) SELECT ?, ?, ?, ? WHERE (${NEWEST_SIGNING_KEY}) = ?`,
  );
  const remove = db.prepare('DELETE FROM signing_keys WHERE kid = ?');
  const removeAll = db.transaction((kids: readonly string[]) => kids.forEach((kid) => remove.run(kid)));
  const columns = (k: StoredSigningKey) =>
    [k.kid, JSON.stringify(k.privateJwk), JSON.stringify(k.publicJwk), k.createdAt] as const;
  return {
    loadSigningKeys: async () => (all.all() as SigningKeyRow[]).map(signingKeyFromRow),
    saveSigningKey: async (key) => void insertFirst.run(...columns(key)),
    addSigningKey: async (key, replacing) => insertAfter.run(...columns(key), replacing).changes === 1,
    deleteSigningKeys: async (kids) => void removeAll.immediate(kids),
  };
}
