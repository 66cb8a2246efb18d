/**
 * Twin declarations raced through two `muster serve` processes on one PostgreSQL database: the
 * same work declared through both at once opens one intent, and both callers are answered it.
 * A twin check that reads before it writes lets both through, unless the check and the write are
 * one step: the exact same work is caught by the store's open key (a unique index among open
 * tasks) as well, twins by overlapping footprints only by the lock the declaration opens under.
 * Runs only when MUSTER_TEST_PG names a server.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-twins-admin';
const ROUNDS = 25;

describe.skipIf(!testPostgres)('twin declarations raced through two nodes of one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('many_nodes_twins', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN },
    startMs: 30_000,
  }));
  let owner: Registered;

  const declare = async (node: NodeProcess, title: string, footprint: string[], space = 'work') => {
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: title }, { data: { footprint } }] };
    const res = await rpc(
      `${node.url}spaces/${space}/`,
      'SendMessage',
      { message, configuration: { returnImmediately: true } },
      { token: owner.token },
    );
    if (!res.body.result) throw new Error(`declare on ${node.name}: ${JSON.stringify(res.body)}`);
    return res.body.result.task;
  };

  beforeAll(async () => {
    owner = await register(nodes[0]!, 'owner', {}, ADMIN_TOKEN);
    expect(
      (await rest(nodes[1]!, 'POST', 'api/spaces', { token: owner.token, body: { name: 'work', claim: 'open' } }))
        .status,
    ).toBe(201);
  });

  it(`the same declaration through both nodes at once opens one intent and answers it to both, ${ROUNDS} rounds`, async () => {
    const [A, B] = nodes as [NodeProcess, NodeProcess];
    for (let round = 0; round < ROUNDS; round++) {
      // The same work in the words twins compare: title words in another case and order, the
      // footprint in another order and spelling (./, a trailing slash).
      const [a, b] = await Promise.all([
        declare(A, `Raced twin ${round} work`, [`src/r${round}/**`, `docs/r${round}`]),
        declare(B, `work RACED twin ${round}`, [`./docs/r${round}/`, `src/r${round}/**`]),
      ]);
      expect(b.id).toBe(a.id);
      // One of the two opened it; the other was answered it as its twin.
      expect([a.metadata.muster.duplicateOf, b.metadata.muster.duplicateOf].filter(Boolean)).toEqual([a.id]);
    }
    const listed = await rest(A, 'GET', 'api/spaces/work/intents?limit=50');
    const titles = listed.body.data.map((i: { title: string }) => i.title.toLowerCase().split(' ').sort().join(' '));
    expect(titles).toHaveLength(ROUNDS);
    expect(new Set(titles).size).toBe(ROUNDS);
  });

  it(`twins by overlapping footprints (no open key is the same) through both nodes at once open one intent, ${ROUNDS} rounds`, async () => {
    const [A, B] = nodes as [NodeProcess, NodeProcess];
    await rest(A, 'POST', 'api/spaces', { token: owner.token, body: { name: 'overlaps', claim: 'open' } });
    const declareIn = (node: NodeProcess, title: string, footprint: string[]) =>
      declare(node, title, footprint, 'overlaps');
    for (let round = 0; round < ROUNDS; round++) {
      // A glob and a file under it, and a folder: they overlap, so the two are twins, but their keys differ.
      const [a, b] = await Promise.all([
        declareIn(A, `Overlap ${round} fix`, [`src/o${round}/**`]),
        declareIn(B, `fix overlap ${round}`, [`src/o${round}/limit.ts`, `docs/o${round}`]),
      ]);
      expect(b.id, `round ${round}: both opened`).toBe(a.id);
      expect([a.metadata.muster.duplicateOf, b.metadata.muster.duplicateOf].filter(Boolean)).toEqual([a.id]);
    }
    const listed = await rest(B, 'GET', 'api/spaces/overlaps/intents?state=all&limit=50');
    expect(listed.body.data).toHaveLength(ROUNDS);
  });
});
