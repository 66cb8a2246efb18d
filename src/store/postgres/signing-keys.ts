/**
 * The hub's signing keys. Nodes sharing the database may start, or rotate, at the same moment: each
 * insert runs under one transaction-scoped advisory lock and checks the table first, so the first
 * key is stored once and a rotation lands only while the key it replaces is still the newest.
 */
import type pg from 'pg';
import type { SigningKeyStore, StoredSigningKey } from '../signing-keys.js';
import type { Db } from './database.js';
import { NEWEST_SIGNING_KEY, signingKeyFromRow, type SigningKeyRow } from '../rows.js';

/** Two keys, apart from the single-key locks (migrations) and other pairs (boards). */
async function lockKeys(client: pg.PoolClient): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock(hashtext('muster-signing-keys'), 0)");
}

export function signingKeyStatements(db: Db): SigningKeyStore {
  const insert = async (client: pg.PoolClient, k: StoredSigningKey) =>
    void (await client.query(
      'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at) VALUES ($1, $2, $3, $4)',
      [k.kid, JSON.stringify(k.privateJwk), JSON.stringify(k.publicJwk), k.createdAt],
    ));
  return {
    loadSigningKeys: async () =>
      (await db.query<SigningKeyRow>('SELECT * FROM signing_keys ORDER BY created_at, kid')).rows.map(
        signingKeyFromRow,
      ),
    saveSigningKey: (key) =>
      db.transaction(async (client) => {
        await lockKeys(client);
        if ((await client.query('SELECT 1 FROM signing_keys LIMIT 1')).rows.length === 0) await insert(client, key);
      }),
    addSigningKey: (key, replacing) =>
      db.transaction(async (client) => {
        await lockKeys(client);
        if ((await client.query<{ kid: string }>(NEWEST_SIGNING_KEY)).rows[0]?.kid !== replacing) return false;
        await insert(client, key);
        return true;
      }),
    deleteSigningKeys: async (kids) => {
      if (kids.length > 0) await db.query('DELETE FROM signing_keys WHERE kid = ANY($1::text[])', [kids]);
    },
  };
}
