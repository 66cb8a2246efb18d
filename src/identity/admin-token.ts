import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, type Config } from '../config/index.js';
import { makeFolder, PathProblem } from '../files/folders.js';
import type { IdentityStore } from '../store/store.js';
import { hashToken, newAdminToken } from './tokens.js';

/** The admin token as this process knows it: its hash always, and where an operator finds the token. */
export interface AdminTokenInfo {
  hash: string;
  /** "from MUSTER_ADMIN_TOKEN" (or the config file), a file path, or how to find it when only the database has its hash. */
  where: string;
}

const readToken = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
};

/**
 * Settles the admin token. Given by the operator, it is the one. Otherwise a generated token is
 * kept in `adminTokenFile` (mode 0600) and reused on later starts. On PostgreSQL every node must
 * accept the same token, so its hash is kept in the database: the first node to store one wins
 * (writing its file), and every later node uses the stored hash without knowing the token. A token
 * given (environment or config file) that differs from the stored one stops the node: two admins
 * on one hub is a mistake.
 */
export async function settleAdminToken(
  config: Config,
  store: Pick<IdentityStore, 'adminTokenHash' | 'keepAdminTokenHash'>,
): Promise<AdminTokenInfo> {
  const given = config.adminToken;
  const givenIn = config.adminTokenFrom ?? 'MUSTER_ADMIN_TOKEN';
  const file = config.adminTokenFile;
  if (config.db.kind === 'sqlite') {
    const token = given ?? readToken(file) ?? writeNewToken(file);
    return { hash: hashToken(token), where: given ? `from ${givenIn}` : file };
  }
  if (given) {
    const stored = await store.keepAdminTokenHash(hashToken(given));
    if (stored !== hashToken(given)) {
      throw new ConfigError(
        `${givenIn} is not this database's admin token (its fingerprint is ${stored.slice(0, 16)}); set it to that token, or unset it to use the stored one`,
      );
    }
    return { hash: stored, where: `from ${givenIn}` };
  }
  const local = readToken(file);
  const stored = await store.adminTokenHash();
  if (stored) return { hash: stored, where: local && hashToken(local) === stored ? file : elsewhere(stored) };
  // The file is written before the hash is offered, so a crash between leaves a token that the next start offers again.
  const token = local ?? writeNewToken(file);
  const kept = await store.keepAdminTokenHash(hashToken(token));
  if (kept === hashToken(token)) return { hash: kept, where: file };
  // Another node stored its token first: ours was never valid, so its file goes (a file left behind holds a token no node accepts).
  if (!local) rmSync(file, { force: true });
  return { hash: kept, where: elsewhere(kept) };
}

const elsewhere = (hash: string) =>
  `kept hashed in the database (fingerprint ${hash.slice(0, 16)}); it is in the admin-token file of the node that created it, or set MUSTER_ADMIN_TOKEN`;

/** A new token, written to `file` (which must not exist yet) with mode 0600. */
function writeNewToken(file: string): string {
  const token = newAdminToken();
  try {
    makeFolder(dirname(file));
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    const why = e instanceof PathProblem ? e.message : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    throw new ConfigError(`cannot write the admin token to ${file}: ${why}`);
  }
  return token;
}
