/**
 * Key rotation on two `muster serve` processes sharing one PostgreSQL database: a rotation
 * through A is listed by B's JWKS at once, and B signs its cards with the new key within its
 * re-read of the keys. Runs only when MUSTER_TEST_PG names a server.
 */
import { decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { fetchCard, verifyWithJose, verifyWithSdk } from './helpers/card-signatures.js';
import { rest } from './helpers/hub.js';
import { eventually, type NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-keys-admin';

describe.skipIf(!testPostgres)('signing keys on two nodes of one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('many_nodes_keys', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess;
  const kids = async (node: NodeProcess) =>
    ((await (await fetch(`${node.url}.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map(
      (k) => k.kid,
    );
  const cardKid = async (node: NodeProcess, version?: '0.3') =>
    decodeProtectedHeader((await fetchCard(`${node.url}.well-known/agent-card.json`, version)).card.signatures[0]!).kid;

  beforeAll(() => {
    [A, B] = nodes as [NodeProcess, NodeProcess];
  });

  it('both nodes start on the one stored key', async () => {
    expect(await kids(A)).toEqual(await kids(B));
    expect(await kids(A)).toHaveLength(1);
    expect(await cardKid(B)).toBe(await cardKid(A));
  });

  it('a rotation through A: B lists the new key at once and signs with it', async () => {
    const before = (await fetchCard(`${B.url}.well-known/agent-card.json`)).card;
    const oldKid = await cardKid(B);
    const rotated = await rest(A, 'POST', 'api/keys/rotate', { token: ADMIN_TOKEN, body: {} });
    expect(rotated.status).toBe(200);
    const newKid = rotated.body.kid as string;
    expect(await kids(B)).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect(await cardKid(A)).toBe(newKid);
    await eventually(
      'B to sign with the new key',
      async () => ((await cardKid(B)) === newKid && (await cardKid(B, '0.3')) === newKid) || undefined,
      10_000,
      100,
    );
    const fresh = (await fetchCard(`${B.url}.well-known/agent-card.json`)).card;
    await verifyWithJose(fresh, `${B.url}.well-known/jwks.json`);
    await verifyWithSdk(fresh);
    // A card B served before the rotation still verifies against either node's JWKS.
    await verifyWithJose(before, `${B.url}.well-known/jwks.json`);
    await verifyWithSdk(before);
  });

  it('rotations through both nodes at once leave one newest key, which both sign with', async () => {
    const [a, b] = await Promise.all(
      [A, B].map((node) => rest(node, 'POST', 'api/keys/rotate', { token: ADMIN_TOKEN, body: {} })),
    );
    expect([a!.status, b!.status]).toEqual([200, 200]);
    expect(a!.body.kid).not.toBe(b!.body.kid);
    const listed = await kids(A);
    expect(listed).toEqual(await kids(B));
    expect(listed).toEqual(expect.arrayContaining([a!.body.kid, b!.body.kid]));
    const newest = await cardKid(A);
    expect([a!.body.kid, b!.body.kid]).toContain(newest);
    await eventually(
      'B to sign with the newest key',
      async () => (await cardKid(B)) === newest || undefined,
      10_000,
      100,
    );
  });
});
