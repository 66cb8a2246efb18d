/**
 * Memory boards on two `muster serve` processes sharing one PostgreSQL database: 50 concurrent
 * appends to one board through both nodes lose no card, a board made through one node is read and
 * recalled through the other, and a retried message through the other node writes nothing twice.
 * Runs only when MUSTER_TEST_PG names a server.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { register, rpc, type Registered } from './helpers/hub.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-memory-admin';

describe.skipIf(!testPostgres)('memory boards on two nodes of one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('many_nodes_memory', ['A', 'B'], (db) => ({ db, env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN }, startMs: 30_000 }));
  let A: NodeProcess, B: NodeProcess;
  let ann: Registered;

  const skill = async (node: NodeProcess, id: string, args: unknown, messageId = randomUUID()) => {
    const res = await rpc(`${node.url}memory/`, 'SendMessage', { message: { messageId, role: 'ROLE_USER', parts: [{ data: { skill: id, args } }] } }, { token: ann.token });
    if (!res.body.result) throw new Error(`${id} on ${node.name}: ${JSON.stringify(res.body)}`);
    return res.body.result.task;
  };
  const data = (task: any) => task.artifacts.find((a: any) => a.artifactId === 'result').parts.find((p: any) => p.data).data;

  beforeAll(async () => {
    [A, B] = nodes as [NodeProcess, NodeProcess];
    ann = await register(A, 'ann', {}, ADMIN_TOKEN);
  });

  it('50 concurrent board.remember calls through both nodes into one board lose no card', async () => {
    const board = (await skill(A, 'board.create', { title: 'Shared work', cards: ['the first card'] })).metadata.muster.board;
    const added = await Promise.all(Array.from({ length: 50 }, (_, i) => skill(nodes[i % 2]!, 'board.remember', { board, cards: [`card number ${i}`] })));
    expect(added.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    const read = data(await skill(B, 'board.read', { board }));
    expect(read.cards).toHaveLength(51);
    expect(new Set(read.cards.map((c: any) => c.text)).size).toBe(51);
    expect(read.board.cards).toBe(51);
  });

  it('a board made through one node is recalled through the other; a message retried through the other node writes nothing twice', async () => {
    const messageId = randomUUID();
    const made = await skill(A, 'board.create', { title: 'Decisions', cards: ['We chose PostgreSQL #decision'] }, messageId);
    const retried = await skill(B, 'board.create', { title: 'Decisions', cards: ['We chose PostgreSQL #decision'] }, messageId);
    expect(retried.id).toBe(made.id);
    const found = data(await skill(B, 'board.recall', { query: '#decision' }));
    expect(found.cards.map((c: any) => c.text)).toEqual(['We chose PostgreSQL #decision']);
    const listed = data(await skill(B, 'board.list', {}));
    expect(listed.boards.filter((b: any) => b.title === 'Decisions')).toHaveLength(1);
  });
});
