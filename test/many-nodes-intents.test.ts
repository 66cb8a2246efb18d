/**
 * Work intents on three `muster serve` processes sharing one PostgreSQL database: claims raced
 * through different nodes are won once, a lease that runs out reopens the intent once with three
 * schedulers, a blocking declaration on one node ends when a worker lands through another, and a
 * withdrawal through one node ends a worker's stream held on another.
 * Runs only when MUSTER_TEST_PG names a server.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import { eventually, openSse, sleep, type NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-intents-admin';

describe.skipIf(!testPostgres)('work intents on three nodes of one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('many_nodes_intents', ['A', 'B', 'C'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, MUSTER_INTENT_WAIT_S: '10' },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess, C: NodeProcess;
  let owner: Registered;
  const workers: Registered[] = [];

  const base = (node: NodeProcess) => `${node.url}spaces/work/`;
  const declare = async (
    node: NodeProcess,
    title: string,
    configuration: Record<string, unknown> = { returnImmediately: true },
  ) => {
    const res = await rpc(
      base(node),
      'SendMessage',
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: title }, { data: { footprint: [`${title.replace(/\W+/g, '-')}/**`] } }],
        },
        configuration,
      },
      { token: owner.token },
    );
    if (!res.body.result) throw new Error(`declare on ${node.name}: ${JSON.stringify(res.body)}`);
    return res.body.result.task;
  };
  const act = (node: NodeProcess, id: string, action: string, w: Registered, body: unknown = {}) =>
    rest(node, 'POST', `api/tasks/${id}/${action}`, { token: w.token, body });

  beforeAll(async () => {
    [A, B, C] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    owner = await register(A, 'owner', {}, ADMIN_TOKEN);
    workers.push(
      ...(await Promise.all(
        ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'].map((h, i) => register(nodes[i % 3]!, h, {}, ADMIN_TOKEN)),
      )),
    );
    expect(
      (await rest(B, 'POST', 'api/spaces', { token: owner.token, body: { name: 'work', claim: 'open' } })).status,
    ).toBe(201);
  });

  it('one intent claimed at once by six workers through the three nodes: one wins, the others get 409 naming the winner', async () => {
    for (let round = 0; round < 5; round++) {
      const intent = await declare(A, `Raced work ${round}`);
      const answers = await Promise.all(workers.map((w, i) => act(nodes[i % 3]!, intent.id, 'claim', w)));
      const won = answers.filter((a) => a.status === 200);
      expect(won).toHaveLength(1);
      const winner = won[0]!.body.metadata.muster.worker;
      for (const lost of answers.filter((a) => a.status !== 200)) {
        expect(lost.status).toBe(409);
        expect(lost.body.error.message).toContain(`held by ${winner}`);
      }
      const read = (await rpc(base(C), 'GetTask', { id: intent.id })).body.result;
      expect(read.metadata.muster.worker).toBe(winner);
    }
  });

  it('a lease that runs out reopens the intent once, with three schedulers, and a worker on another node claims it', async () => {
    const intent = await declare(B, 'Leased work');
    expect((await act(A, intent.id, 'claim', workers[0]!, { leaseSeconds: 1 })).status).toBe(200);
    await eventually('the lease to run out', async () =>
      (await rpc(base(C), 'GetTask', { id: intent.id })).body.result.status.state === 'TASK_STATE_SUBMITTED'
        ? true
        : undefined,
    );
    await sleep(800); // every scheduler has had its turn
    const stream = await openSse(base(B), 'SubscribeToTask', { id: intent.id }, { lastEventId: 0 });
    await sleep(300);
    stream.close();
    const states = (await stream.waitEnd()).map((e) => e.data.result?.statusUpdate?.status.state).filter(Boolean);
    expect(states).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED']); // reopened once, not once per node
    expect((await act(C, intent.id, 'claim', workers[1]!)).body.metadata.muster.worker).toBe('w2');
  });

  it('a blocking declaration on A answers the landing made through C', async () => {
    const waiting = declare(A, 'Blocking across nodes', {});
    const id = await eventually(
      'the declaration',
      async () =>
        (await rest(B, 'GET', 'api/spaces/work/intents?state=claimable&limit=50')).body.data.find(
          (i: any) => i.title === 'Blocking across nodes',
        )?.id,
    );
    await act(B, id, 'claim', workers[2]!);
    await act(C, id, 'land', workers[2]!, { summary: 'Landed through C.' });
    const answer = await waiting;
    expect(answer.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.artifacts[0].name).toBe('Landing');
  });

  it("a withdrawal through B ends the worker's stream on C, and its next heartbeat through A is refused as withdrawn", async () => {
    const intent = await declare(A, 'Withdrawn across nodes');
    await act(C, intent.id, 'claim', workers[3]!);
    const stream = await openSse(base(C), 'SubscribeToTask', { id: intent.id }, { token: workers[3]!.token });
    await stream.waitFor(1);
    const canceled = await rpc(
      base(B),
      'CancelTask',
      { id: intent.id, metadata: { reason: 'not needed' } },
      { token: owner.token },
    );
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    const events = await stream.waitEnd();
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
    const beat = await act(A, intent.id, 'heartbeat', workers[3]!);
    expect(beat.status).toBe(409);
    expect(beat.body.error.message).toMatch(/withdrawn/);
  });
});
