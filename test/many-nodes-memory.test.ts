/**
 * Memory boards on two `muster serve` processes sharing one PostgreSQL database: 50 concurrent
 * appends to one board through both nodes lose no card, a board made through one node is read and
 * recalled through the other, a retried message through the other node writes nothing twice, and
 * two calls at the very edge of the memory quota through both nodes write one card, not two.
 * Runs only when MUSTER_TEST_PG names a server.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { register, rpc, type Registered } from './helpers/hub.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const ADMIN_TOKEN = 'many-nodes-memory-admin';

describe.skipIf(!testPostgres)('memory boards on two nodes of one PostgreSQL database', () => {
  let databaseUrl = '';
  const { nodes } = clusterOnPostgres(
    'many_nodes_memory',
    ['A', 'B'],
    (db) => ((databaseUrl = db), { db, env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN }, startMs: 30_000 }),
  );
  let A: NodeProcess, B: NodeProcess;
  let ann: Registered;

  const skill = async (node: NodeProcess, id: string, args: unknown, messageId = randomUUID()) => {
    const res = await rpc(
      `${node.url}memory/`,
      'SendMessage',
      { message: { messageId, role: 'ROLE_USER', parts: [{ data: { skill: id, args } }] } },
      { token: ann.token },
    );
    if (!res.body.result) throw new Error(`${id} on ${node.name}: ${JSON.stringify(res.body)}`);
    return res.body.result.task;
  };
  const data = (task: any) =>
    task.artifacts.find((a: any) => a.artifactId === 'result').parts.find((p: any) => p.data).data;

  beforeAll(async () => {
    [A, B] = nodes as [NodeProcess, NodeProcess];
    ann = await register(A, 'ann', {}, ADMIN_TOKEN);
  });

  it('50 concurrent board.remember calls through both nodes into one board lose no card', async () => {
    const board = (await skill(A, 'board.create', { title: 'Shared work', cards: ['the first card'] })).metadata.muster
      .board;
    const added = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        skill(nodes[i % 2]!, 'board.remember', { board, cards: [`card number ${i}`] }),
      ),
    );
    expect(added.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    const read = data(await skill(B, 'board.read', { board }));
    expect(read.cards).toHaveLength(51);
    expect(new Set(read.cards.map((c: any) => c.text)).size).toBe(51);
    expect(read.board.cards).toBe(51);
  });

  it('a board made through one node is recalled through the other; a message retried through the other node writes nothing twice', async () => {
    const messageId = randomUUID();
    const made = await skill(
      A,
      'board.create',
      { title: 'Decisions', cards: ['We chose PostgreSQL #decision'] },
      messageId,
    );
    const retried = await skill(
      B,
      'board.create',
      { title: 'Decisions', cards: ['We chose PostgreSQL #decision'] },
      messageId,
    );
    expect(retried.id).toBe(made.id);
    const found = data(await skill(B, 'board.recall', { query: '#decision' }));
    expect(found.cards.map((c: any) => c.text)).toEqual(['We chose PostgreSQL #decision']);
    const listed = data(await skill(B, 'board.list', {}));
    expect(listed.boards.filter((b: any) => b.title === 'Decisions')).toHaveLength(1);
  });

  it('two calls at the very edge of the 600-a-minute quota through both nodes at once: one writes its card, the other is refused and writes none', async () => {
    const board = (await skill(A, 'board.create', { title: 'At the edge', cards: ['before the edge'] })).metadata.muster
      .board;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const call = (node: NodeProcess, text: string) =>
      rpc(
        `${node.url}memory/`,
        'SendMessage',
        {
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [{ data: { skill: 'board.remember', args: { board, cards: [text] } } }],
          },
        },
        { token: ann.token },
      );
    try {
      for (let round = 0; round < 8; round++) {
        // One use left in this minute's window (and not so near its end that the calls land in the next one).
        if (Date.now() % 60_000 > 57_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 100));
        const window = Math.floor(Date.now() / 60_000) * 60_000;
        await client.query(
          `INSERT INTO quota_counters (key, window_start, used) VALUES ('memory.calls|ann', $1, 599) ON CONFLICT (key, window_start) DO UPDATE SET used = 599`,
          [window],
        );
        const [a, b] = await Promise.all([call(A, `through A, round ${round}`), call(B, `through B, round ${round}`)]);
        const outcomes = [a, b]
          .map((r) => (r.body.result ? r.body.result.task.status.state : r.body.error.data[0].reason))
          .sort();
        expect(outcomes, `round ${round}`).toEqual(['RATE_LIMITED', 'TASK_STATE_COMPLETED']);
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM cards WHERE board_id = $1 AND text LIKE '%round ' || $2`,
          [board, String(round)],
        );
        expect(rows[0].n, `round ${round}: cards written`).toBe(1);
      }
    } finally {
      await client.end();
    }
  }, 90_000);
});
