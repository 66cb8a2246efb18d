/**
 * Agent profiles on two `muster serve` processes sharing one PostgreSQL database: a profile
 * patched through A is what B shows at once, in its REST profile, its card and its directory.
 * Runs only when MUSTER_TEST_PG names a server.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { fetchCard } from './helpers/card-signatures.js';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-profiles-admin';

describe.skipIf(!testPostgres)('agent profiles on two nodes of one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('many_nodes_profiles', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess;
  let cleo: Registered;
  const directory = async (node: NodeProcess, args: unknown) => {
    const res = await rpc(
      node.url,
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill: 'directory.search', args } }] },
      },
      { token: cleo.token },
    );
    return (res.body.result.message.parts[1].data.agents as { handle: string }[]).map((a) => a.handle);
  };
  const skillIds = async (node: NodeProcess) =>
    (
      (await fetchCard(`${node.url}agents/nodes-cleo/.well-known/agent-card.json`)).card['skills'] as { id: string }[]
    ).map((s) => s.id);

  beforeAll(async () => {
    [A, B] = nodes as [NodeProcess, NodeProcess];
    cleo = await register(A, 'nodes-cleo', {}, ADMIN_TOKEN);
  });

  it('a patch through A is read through B: profile, card and directory', async () => {
    expect(await skillIds(B)).toEqual(['direct-task']); // B has served the card before the patch
    const patched = await rest(A, 'PATCH', 'api/agents/nodes-cleo', {
      token: cleo.token,
      body: {
        name: 'Cleo',
        skills: [{ id: 'chart', name: 'Draw charts', description: 'Charts from CSV' }],
        tags: ['charts'],
      },
    });
    expect(patched.status).toBe(200);
    expect((await rest(B, 'GET', 'api/agents/nodes-cleo')).body).toMatchObject({
      name: 'Cleo',
      skills: [{ id: 'chart' }],
      tags: ['charts'],
    });
    expect(await skillIds(B)).toEqual(['direct-task', 'chart']);
    expect(await directory(B, { skill: 'chart' })).toEqual(['nodes-cleo']);
    expect((await rest(B, 'GET', 'api/agents?tag=charts')).body.data.map((a: { handle: string }) => a.handle)).toEqual([
      'nodes-cleo',
    ]);
  });

  it('a patch through B replaces what A shows', async () => {
    expect(
      (await rest(B, 'PATCH', 'api/agents/nodes-cleo', { token: ADMIN_TOKEN, body: { skills: [], tags: ['graphs'] } }))
        .status,
    ).toBe(200);
    expect(await skillIds(A)).toEqual(['direct-task']);
    expect(await directory(A, { tag: 'charts' })).toEqual([]);
    expect(await directory(A, { q: 'cleo', tag: 'graphs' })).toEqual(['nodes-cleo']);
  });
});
