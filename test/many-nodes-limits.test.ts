/**
 * The per-address limits on three `muster serve` processes sharing one PostgreSQL database: the
 * counts live in the database, so refused tokens and registrations through any node count toward
 * one limit. The nodes trust loopback as their proxy, so X-Forwarded-For names the client.
 * Runs only when MUSTER_TEST_PG names a server.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { awayFromWindowEdge, EDGE_WAIT_TIMEOUT_MS, register, rest, rpc, type Registered } from './helpers/hub.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-limits-admin';
const from = (address: string) => ({ 'x-forwarded-for': address });

describe.skipIf(!testPostgres)('per-address limits across three nodes of one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('many_nodes_limits', ['A', 'B', 'C'], (db) => ({
    db,
    env: {
      MUSTER_ADMIN_TOKEN: ADMIN_TOKEN,
      MUSTER_TRUST_PROXY: '127.0.0.1',
      MUSTER_LIMIT_TOKEN_FAILURES: '4',
      MUSTER_LIMIT_REGISTER_ADDRESS: '3',
    },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess, C: NodeProcess;
  let ada: Registered;

  beforeAll(async () => {
    [A, B, C] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    ada = await register(A, 'limits-ada', {}, ADMIN_TOKEN);
    await register(A, 'limits-bo', {}, ADMIN_TOKEN);
  });

  it(
    '4 tokens refused through A and B from one address: C refuses that address even a good token (429 / -32029), and serves it from another',
    async () => {
      await awayFromWindowEdge(3_600_000, 30_000);
      const X = from('203.0.113.80');
      // C has seen ada's token, so it checks it in SendMessage's own statement: the gate is checked there too.
      expect(
        (await rpc(`${C.url}agents/limits-bo/`, 'ListTasks', {}, { token: ada.token, headers: from('198.51.100.80') }))
          .status,
      ).toBe(200);
      for (const node of [A, B, A, B])
        expect(
          (await rest(node, 'GET', 'api/inbox', { token: `mst_guess-${randomUUID()}`, headers: X })).status,
          node.name,
        ).toBe(401);
      const blocked = await rpc(
        `${C.url}agents/limits-bo/`,
        'SendMessage',
        { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
        { token: ada.token, headers: X },
      );
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe(-32029);
      expect(blocked.body.error.message).toMatch(/4 refused bearer tokens an hour from one address/);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      for (const node of [A, B])
        expect((await rest(node, 'GET', 'api/inbox', { token: ada.token, headers: X })).status, node.name).toBe(429);
      expect(
        (await rest(C, 'GET', 'api/sent?state=all', { token: ada.token, headers: from('198.51.100.80') })).body.data,
      ).toEqual([]);
    },
    EDGE_WAIT_TIMEOUT_MS,
  );

  it(
    '6 registrations from one address at once through A, B and C: 3 accepted (the limit), 3 refused 429, and only 3 stored',
    async () => {
      await awayFromWindowEdge(3_600_000, 30_000);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          rest(nodes[i % 3]!, 'POST', 'api/agents', {
            body: { handle: `limits-reg-${i}` },
            headers: from('203.0.113.81'),
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
      for (const refused of answers.filter((a) => a.status === 429))
        expect(refused.body.error.code).toBe('RATE_LIMITED');
      const stored = await Promise.all(answers.map((_, i) => rest(C, 'GET', `api/agents/limits-reg-${i}`)));
      expect(stored.filter((s) => s.status === 200)).toHaveLength(3);
    },
    EDGE_WAIT_TIMEOUT_MS,
  );
});
