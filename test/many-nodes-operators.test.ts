/**
 * Operators on two `muster serve` processes sharing one PostgreSQL database: an operator made
 * through A registers and reads through B, and a pause through A refuses a send through B at once
 * (the pause is a row, checked in every send's own write; no node keeps a copy). Runs only when MUSTER_TEST_PG
 * names a server.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-operators-admin';

describe.skipIf(!testPostgres)('operators on two nodes of one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('many_nodes_operators', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess;
  let operator: string;
  let sender: Registered;
  const send = (node: NodeProcess) =>
    rpc(
      `${node.url}agents/nodes-owned/`,
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      { token: sender.token },
    );

  beforeAll(async () => {
    [A, B] = nodes as [NodeProcess, NodeProcess];
    operator = (await rest(A, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'nodes-op' } })).body
      .token;
    sender = await register(A, 'nodes-sender', {}, ADMIN_TOKEN);
  });

  it("an operator made through A registers through B and reads its agent's task through either", async () => {
    const owned = await rest(B, 'POST', 'api/agents', { token: operator, body: { handle: 'nodes-owned' } });
    expect(owned.body.operator).toBe('nodes-op');
    const task = (await send(A)).body.result.task.id;
    for (const node of [A, B]) {
      expect(
        (await rest(node, 'GET', 'api/inbox?agent=nodes-owned', { token: operator })).body.data.map(
          (t: { id: string }) => t.id,
        ),
      ).toEqual([task]);
      expect(
        (await rpc(`${node.url}agents/nodes-owned/`, 'GetTask', { id: task }, { token: operator })).body.result.id,
      ).toBe(task);
    }
  });

  it('a pause through A refuses a send through B at once; a resume through B lets A send again', async () => {
    expect((await send(B)).body.result.task.id).toBeDefined(); // B has sent to the agent before the pause
    expect((await rest(A, 'POST', 'api/agents/nodes-owned/pause', { token: operator })).status).toBe(200);
    const refused = await send(B);
    expect(refused.body.error.data[0].reason).toBe('AGENT_PAUSED');
    expect((await rest(B, 'GET', 'api/agents/nodes-owned')).body.paused.by).toBe('operator');
    expect((await rest(B, 'POST', 'api/agents/nodes-owned/resume', { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await send(A)).body.result.task.id).toBeDefined();
  });

  it('an operator token revoked through A is refused by B at once', async () => {
    const made = await rest(A, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'nodes-op-two' } });
    expect((await rest(B, 'GET', 'api/me', { token: made.body.token })).body.handle).toBe('nodes-op-two');
    const [live] = (await rest(A, 'GET', 'api/operators/nodes-op-two/tokens', { token: ADMIN_TOKEN })).body.tokens;
    expect(
      (await rest(A, 'DELETE', `api/operators/nodes-op-two/tokens/${live.id}`, { token: made.body.token })).status,
    ).toBe(204);
    expect((await rest(B, 'GET', 'api/me', { token: made.body.token })).status).toBe(401);
  });
});
