/**
 * The admin token on PostgreSQL, where nodes share one database but not their folders: the first
 * node writes the token to its own .muster/admin-token and keeps its hash in the database; a node
 * started later elsewhere accepts that token without knowing it, and says where to find it.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startNode, stopNodes, type NodeProcess } from './helpers/nodes.js';
import { freshPostgresDatabase, testPostgres } from './helpers/postgres.js';
import { fingerprint } from '../src/identity/tokens.js';

describe.skipIf(!testPostgres)('the admin token on PostgreSQL', () => {
  const nodes: NodeProcess[] = [];
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await stopNodes(nodes);
    await drop?.();
  });

  it('is made by the first node, kept hashed in the database, and accepted by a node that never saw it', async () => {
    const database = await freshPostgresDatabase('admin-token');
    drop = database.drop;
    const [first, second] = [
      mkdtempSync(join(tmpdir(), 'muster-node-e-')),
      mkdtempSync(join(tmpdir(), 'muster-node-f-')),
    ];
    const e = await startNode('E', { db: database.url, cwd: first });
    nodes.push(e);
    const file = join(first, '.muster', 'admin-token');
    expect(e.output()).toContain(`Admin token: ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, 'utf8').trim();

    const f = await startNode('F', { db: database.url, cwd: second });
    nodes.push(f);
    expect(f.output()).toContain(`Admin token: kept hashed in the database (fingerprint ${fingerprint(token)})`);
    for (const node of [e, f]) {
      const health = (await (await fetch(`${node.url}health`)).json()) as {
        store: string;
        adminTokenFingerprint: string;
      };
      expect(health).toMatchObject({ store: 'postgres', adminTokenFingerprint: fingerprint(token) });
      const me = (await (
        await fetch(`${node.url}api/me`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { kind: string };
      expect(me.kind).toBe('admin');
    }

    await e.stop('SIGTERM'); // started again in its folder, it finds its file and the hash agreeing
    const again = await startNode('E2', { db: database.url, cwd: first });
    nodes.push(again);
    expect(again.output()).toContain(`Admin token: ${file}`);
    expect(readFileSync(file, 'utf8').trim()).toBe(token);
  }, 40_000);
});
