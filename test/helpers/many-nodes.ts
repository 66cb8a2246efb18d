/**
 * Three real `muster serve` processes (A, B, C) on one fresh PostgreSQL database, with alice
 * registered through A and bob through B, for the test/many-nodes-*.test.ts parts that drive tasks
 * through them: the nodes' settings, and the small readers and writers those parts share.
 */
import pg from 'pg';
import { beforeAll, expect } from 'vitest';
import { clusterOnPostgres } from './cluster.js';
import { register, rest, rpc, type Registered } from './hub.js';
import { logLines, openSse, sleep, type NodeProcess, type SseEvent } from './nodes.js';

export const ADMIN_TOKEN = 'many-nodes-admin-token';
export const NODE_ENV = {
  MUSTER_ADMIN_TOKEN: ADMIN_TOKEN,
  MUSTER_ALLOW_PRIVATE_TARGETS: '1',
  MUSTER_DELIVERY_RETRIES: '1,1,2',
  MUSTER_REVIEW_MIN_DEADLINE_S: '1',
};
// The rate limits stay on: they are counted in the shared database, and the load test spreads its
// requests over 20 sender→target pairs (15 each, under the 30 a minute per pair) and 4 inboxes.

export const WORKING = 'TASK_STATE_WORKING';
export const COMPLETED = 'TASK_STATE_COMPLETED';
const TERMINAL = [COMPLETED, 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
export const kindOf = (result: any) => Object.keys(result)[0];
export const stateOf = (result: any) => result.task?.status.state ?? result.statusUpdate?.status.state;
export const texts = (messages: any[] | undefined) => (messages ?? []).map((m) => m.parts[0].text);
export const bobBase = (node: NodeProcess) => `${node.url}agents/bob/`;

export interface ManyNodes {
  /** A, B and C; empty until the block's beforeAll has run. */
  readonly nodes: NodeProcess[];
  /** The nodes and the two agents, once the block's beforeAll has run. */
  parties(): { A: NodeProcess; B: NodeProcess; C: NodeProcess; alice: Registered; bob: Registered };
  /** The database's URL. */
  url(): string;
  /** Rows of `text` (with $1 placeholders), read beside the nodes. */
  sql(text: string, params?: unknown[]): Promise<any[]>;
  /** bob's answer to task `id`, through `node`. */
  respond(node: NodeProcess, id: string, body: object, token?: string): Promise<{ status: number; body: any }>;
  /** A new task from `from` to `to`, sent through `node`: its id. */
  newTask(node: NodeProcess, text: string, from?: Registered, to?: string): Promise<string>;
  /** Every event of a task as a stream replays it from the start (Last-Event-ID: 0), the snapshot left out. */
  replay(node: NodeProcess, id: string, token?: string, base?: string): Promise<SseEvent[]>;
}

/**
 * Starts A, B and C for a describe block, all three at the same moment on the empty database
 * `database` (they race for the migrations; C reads its database from MUSTER_DB, A and B from --db),
 * then registers alice through A and bob through B.
 */
export function threeNodes(database: string): ManyNodes {
  const cluster = clusterOnPostgres(database, ['A', 'B', 'C'], (db, name) => ({
    db,
    dbVia: name === 'C' ? 'env' : 'flag',
    env: NODE_ENV,
    startMs: 30_000,
  }));
  const { nodes } = cluster;
  let alice: Registered;
  let bob: Registered;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([
      register(nodes[0]!, 'alice', {}, ADMIN_TOKEN),
      register(nodes[1]!, 'bob', {}, ADMIN_TOKEN),
    ]);
  });

  const sql = async (text: string, params: unknown[] = []): Promise<any[]> => {
    const client = new pg.Client({ connectionString: cluster.url() });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  };
  const respond = (node: NodeProcess, id: string, body: object, token = bob.token) =>
    rest(node, 'POST', `api/tasks/${id}/respond`, { token, body });
  const newTask = async (node: NodeProcess, text: string, from = alice, to = 'bob'): Promise<string> => {
    // returnImmediately: a send to an agent that forwards (9c) would wait for its answer (test/blocking-send.test.ts).
    const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
    const { status, body } = await rpc(
      `${node.url}agents/${to}/`,
      'SendMessage',
      { message, configuration: { returnImmediately: true } },
      { token: from.token },
    );
    if (status !== 200 || !body.result?.task?.id)
      throw new Error(`SendMessage on ${node.name}: ${status} ${JSON.stringify(body)}`);
    return body.result.task.id;
  };
  const replay = async (node: NodeProcess, id: string, token?: string, base = bobBase(node)): Promise<SseEvent[]> => {
    const stream = await openSse(base, 'SubscribeToTask', { id }, { ...(token ? { token } : {}), lastEventId: 0 });
    if (stream.json) throw new Error(`replay on ${node.name}: ${stream.status} ${JSON.stringify(stream.json)}`);
    const [snapshot] = await stream.waitFor(1);
    expect(snapshot!.data.result.task).toBeDefined();
    if (!TERMINAL.includes(snapshot!.data.result.task.status.state)) {
      await sleep(300); // an open task's stream stays open: what it replays comes at once
      stream.close();
    }
    return (await stream.waitEnd(5_000)).slice(1);
  };
  const parties = () => {
    const [A, B, C] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    return { A, B, C, alice, bob };
  };
  return { nodes, parties, url: cluster.url, sql, respond, newTask, replay };
}

/**
 * Nothing on the nodes' stderr, and no log line at warn or above but those whose message `expected`
 * matches (the warnings a part's tests cause on purpose): no failed request, delivery or scheduled work.
 */
export function expectOnlyExpectedLogs(nodes: readonly NodeProcess[], expected?: RegExp): void {
  const stderr = nodes.flatMap((n) =>
    n
      .output()
      .split('\n')
      .filter((line) => line.startsWith(`[${n.name} err]`)),
  );
  expect(stderr).toEqual([]);
  const warnings = nodes.flatMap((n) =>
    logLines(n.output()).filter((line) => Number(line['level']) >= 40 && !expected?.test(String(line['msg']))),
  );
  expect(warnings).toEqual([]);
}
