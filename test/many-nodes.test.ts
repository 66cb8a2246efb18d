/**
 * Three real `muster serve` processes (A, B, C) on one PostgreSQL database, as they would run
 * behind a load balancer: whatever is done through one node is seen, streamed, pushed and
 * scheduled correctly by the others, and a node that dies takes nothing acknowledged with it.
 * Runs only when MUSTER_TEST_PG names a server (see helpers/postgres.ts).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { verifyDetached } from '../src/delivery/signing.js';
import { awayFromWindowEdge, register, rest, rpc, type Registered } from './helpers/hub.js';
import {
  cleanEnv,
  eventually,
  logLines,
  nodeLogs,
  openSse,
  sleep,
  startNode,
  startNodes,
  stopNodes,
  within,
  type NodeProcess,
  type SseEvent,
} from './helpers/nodes.js';
import { freshPostgresDatabase, testPostgres } from './helpers/postgres.js';
import { contribution, dataParams, openData, reviewRequest, sendData } from './helpers/review.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';
import { startWebhook } from './helpers/webhook.js';
import { startA2AEndpoint } from './helpers/a2a-endpoint.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ADMIN_TOKEN = 'many-nodes-admin-token';
const NODE_ENV = {
  MUSTER_ADMIN_TOKEN: ADMIN_TOKEN,
  MUSTER_ALLOW_PRIVATE_TARGETS: '1',
  MUSTER_DELIVERY_RETRIES: '1,1,2',
  MUSTER_REVIEW_MIN_DEADLINE_S: '1',
};
// The rate limits stay on: they are counted in the shared database, and the load test spreads its
// requests over 20 sender→target pairs (15 each, under the 30 a minute per pair) and 4 inboxes.

const WORKING = 'TASK_STATE_WORKING';
const COMPLETED = 'TASK_STATE_COMPLETED';
const TERMINAL = [COMPLETED, 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
const kindOf = (result: any) => Object.keys(result)[0];
const stateOf = (result: any) => result.task?.status.state ?? result.statusUpdate?.status.state;
const texts = (messages: any[] | undefined) => (messages ?? []).map((m) => m.parts[0].text);

describe.skipIf(!testPostgres)('three muster serve processes on one PostgreSQL database', () => {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let nodes: NodeProcess[] = [];
  let A: NodeProcess;
  let B: NodeProcess;
  let C: NodeProcess;
  let alice: Registered;
  let bob: Registered;

  const sql = async (text: string, params: unknown[] = []): Promise<any[]> => {
    const client = new pg.Client({ connectionString: db!.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  };
  const bobBase = (node: NodeProcess) => `${node.url}agents/bob/`;
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
  /** Every event of a task as a stream replays it from the start (Last-Event-ID: 0), the snapshot left out. */
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
  /** Collects an SDK stream until it ends; `onEvent` may act on each event. */
  const collect = async (iterable: AsyncIterable<unknown>, onEvent: (json: any, all: any[]) => unknown = () => {}) => {
    const seen: any[] = [];
    for await (const event of iterable) {
      const json = StreamResponse.toJSON(event as StreamResponse) as any;
      seen.push(json);
      await onEvent(json, seen);
    }
    return seen;
  };

  beforeAll(async () => {
    db = await freshPostgresDatabase('many_nodes');
    // All three at the same moment on the empty database: they race for the migrations.
    // C reads its database from MUSTER_DB, A and B from --db.
    nodes = await startNodes(['A', 'B', 'C'], (name) => ({
      db: db!.url,
      dbVia: name === 'C' ? 'env' : 'flag',
      env: NODE_ENV,
      startMs: 30_000,
    }));
    [A, B, C] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    [alice, bob] = await Promise.all([register(A, 'alice', {}, ADMIN_TOKEN), register(B, 'bob', {}, ADMIN_TOKEN)]);
  }, 45_000);

  afterAll(async () => {
    await stopNodes(nodes);
    await db?.drop();
  }, 20_000);

  beforeEach(() => {
    onTestFailed(() => console.error(`what the nodes said:\n${nodeLogs(nodes)}`));
  });

  it('all three come up together on the empty database: one run of the migrations, store postgres, one admin token, one key set', async () => {
    const fingerprint = createHash('sha256').update(ADMIN_TOKEN).digest('hex').slice(0, 16);
    const jwks: string[] = [];
    for (const node of nodes) {
      const health = await rest(node, 'GET', 'health');
      expect(health.status, node.name).toBe(200);
      expect(health.body, node.name).toMatchObject({
        status: 'ok',
        store: 'postgres',
        adminTokenFingerprint: fingerprint,
      });
      const me = await rest(node, 'GET', 'api/me', { token: ADMIN_TOKEN });
      expect(me.body, node.name).toEqual({ kind: 'admin' });
      jwks.push(JSON.stringify((await rest(node, 'GET', '.well-known/jwks.json')).body));
    }
    const versions = (await sql('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions).toEqual(versions.map((_, i) => i + 1)); // each applied once, in order
    // A push may be signed by any node and checked against the JWKS of any other.
    expect(JSON.parse(jwks[0]!).keys.length).toBeGreaterThan(0);
    expect(jwks[1]).toBe(jwks[0]);
    expect(jwks[2]).toBe(jwks[0]);
    expect(await sql('SELECT kid FROM signing_keys')).toHaveLength(1);
  });

  it('a process that comes later: migrate finds the database up to date, and a node with another admin token refuses to start', async () => {
    const migrate = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate', '--db', db!.url], {
      cwd: root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(migrate.stdout.trim(), migrate.stderr).toBe(`${db!.url} is up to date`);
    expect(migrate.status).toBe(0);
    const other = startNode('D', { db: db!.url, env: { ...NODE_ENV, MUSTER_ADMIN_TOKEN: 'another-admin-token' } });
    const refused = await other.then(
      async (node) => {
        await node.stop('SIGKILL');
        return `started: ${node.output()}`;
      },
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/exited \(\d+\) before it started/);
    expect(refused).toMatch(/muster: MUSTER_ADMIN_TOKEN is not this database's admin token/);
  });

  it('1. an agent registered through A is known on B and C: its card, its profile, and its token', async () => {
    const agent = await register(A, 'node-one', { name: 'Node One' }, ADMIN_TOKEN);
    for (const node of [B, C]) {
      const card = await rest(node, 'GET', 'agents/node-one/.well-known/agent-card.json');
      expect(card.status, node.name).toBe(200);
      expect(card.body.name).toBe('Node One');
      expect(card.body.supportedInterfaces[0].url).toBe(`${node.url}agents/node-one/`);
      const me = await rest(node, 'GET', 'api/me', { token: agent.token });
      expect(me.status, node.name).toBe(200);
      expect(me.body).toMatchObject({ kind: 'agent', handle: 'node-one', name: 'Node One' });
      expect((await rest(node, 'GET', 'api/agents/node-one')).body).toMatchObject({
        handle: 'node-one',
        name: 'Node One',
      });
      // The SDK discovers the agent through this node.
      const client = await sdkClient(`${node.url}agents/node-one/`, agent.token);
      expect((await client.getAgentCard()).name).toBe('Node One');
    }
    // The checks can fail: an agent nobody registered is unknown everywhere.
    expect((await rest(B, 'GET', 'agents/node-none/.well-known/agent-card.json')).status).toBe(404);
  });

  it('1b. one handle registered through the three nodes at once: one 201, two 409 HANDLE_TAKEN', async () => {
    for (const round of [1, 2, 3]) {
      const handle = `same-handle-${round}`;
      const answers = await Promise.all(
        nodes.map((node) => rest(node, 'POST', 'api/agents', { token: ADMIN_TOKEN, body: { handle } })),
      );
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([201, 409, 409]);
      for (const a of answers.filter((a) => a.status === 409)) expect(a.body.error.code).toBe('HANDLE_TAKEN');
      const token = answers.find((a) => a.status === 201)!.body.token;
      expect((await rest(nodes[round % 3]!, 'GET', 'api/me', { token })).body.handle).toBe(handle);
    }
  });

  it('2. a direct task sent through A (SDK), answered through C (REST), reads back through B (SDK) as answered', async () => {
    const viaA = await sdkClient(bobBase(A), alice.token);
    const sent = wire(await viaA.sendMessage(sendRequest('Please review the draft (sent on A)')));
    expect(sent.status.state).toBe('TASK_STATE_SUBMITTED');
    const answered = await respond(C, sent.id, {
      state: COMPLETED,
      message: { parts: [{ text: 'Looks good (answered on C)' }] },
      artifacts: [{ artifactId: 'notes-1', name: 'notes', parts: [{ text: 'two typos on page 3' }] }],
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const viaB = await sdkClient(bobBase(B), alice.token);
    const read = wire(await viaB.getTask({ tenant: '', id: sent.id }));
    expect(read.status.state).toBe(COMPLETED);
    expect(read.status.message.parts).toEqual([{ text: 'Looks good (answered on C)' }]);
    expect(read.artifacts).toHaveLength(1);
    expect(read.artifacts[0]).toMatchObject({
      artifactId: 'notes-1',
      name: 'notes',
      parts: [{ text: 'two typos on page 3' }],
    });
    expect(texts(read.history)).toEqual(['Please review the draft (sent on A)', 'Looks good (answered on C)']);
    expect(read.metadata.muster).toMatchObject({ kind: 'direct', from: 'alice', to: 'bob' });
  });

  it('3. the same messageId sent through A and through B (one after the other, and at once through all three) makes one task', async () => {
    const target = await register(C, 'idem-target', {}, ADMIN_TOKEN);
    const clients = await Promise.all(nodes.map((n) => sdkClient(`${n.url}agents/idem-target/`, alice.token)));
    const [onA, onB] = [clients[0]!, clients[1]!];
    const first = wire(await onA.sendMessage(sendRequest('once, one after the other', { messageId: 'idem-seq' })));
    const again = wire(await onB.sendMessage(sendRequest('once, one after the other', { messageId: 'idem-seq' })));
    expect(again.id).toBe(first.id);
    const ids = new Set<string>([first.id]);
    for (let round = 0; round < 5; round++) {
      const messageId = `idem-race-${round}`;
      const answers = await Promise.all(
        clients.map(async (c: Client) =>
          wire(await c.sendMessage(sendRequest(`once, at once ${round}`, { messageId }))),
        ),
      );
      expect(new Set(answers.map((a) => a.id)).size, `round ${round}: ${answers.map((a) => a.id).join(' ')}`).toBe(1);
      ids.add(answers[0]!.id);
    }
    expect(ids.size).toBe(6);
    for (const node of nodes) {
      const inbox = await rest(node, 'GET', 'api/inbox?state=all&limit=50', { token: target.token });
      expect(inbox.status, node.name).toBe(200);
      expect(inbox.body.data.map((t: any) => t.id).sort(), node.name).toEqual([...ids].sort());
    }
    const [{ n }] = await sql('SELECT count(*)::int AS n FROM tasks WHERE target = $1', ['idem-target']);
    expect(n).toBe(6);
  });

  it('3b. the rate limit of 30 tasks a minute from one agent to another holds across nodes: 33 sent at once through A, B and C, 30 accepted', async () => {
    const [sender, target] = await Promise.all([
      register(A, 'quota-sender', {}, ADMIN_TOKEN),
      register(B, 'quota-target', {}, ADMIN_TOKEN),
    ]);
    await awayFromWindowEdge(60_000);
    const answers = await Promise.all(
      Array.from({ length: 33 }, (_, i) =>
        rpc(
          `${nodes[i % 3]!.url}agents/quota-target/`,
          'SendMessage',
          { message: { messageId: `quota-${i}`, role: 'ROLE_USER', parts: [{ text: `q ${i}` }] } },
          { token: sender.token },
        ),
      ),
    );
    const accepted = answers.filter((a) => a.body.result?.task);
    const refused = answers.filter((a) => a.body.error);
    expect([accepted.length, refused.length]).toEqual([30, 3]);
    for (const r of refused) expect(r.body.error.data[0].reason, JSON.stringify(r.body.error)).toBe('RATE_LIMITED');
    const inbox = await rest(C, 'GET', 'api/inbox?state=all&limit=50', { token: target.token });
    expect(inbox.body.data).toHaveLength(30);
  });

  it('4. a stream held on A sees the changes made through B and C in order, with no gap or duplicate, and ends after the terminal event', async () => {
    const id = await newTask(A, 'follow me on A');
    const raw = await openSse(bobBase(A), 'SubscribeToTask', { id }, { token: alice.token });
    const snapshot = (await raw.waitFor(1))[0]!;
    expect(snapshot.id).toBe(1);
    expect(snapshot.data.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
    const viaA = await sdkClient(bobBase(A), alice.token);
    let sdkOpen!: () => void;
    const sdkOpened = new Promise<void>((r) => (sdkOpen = r));
    const sdkStream = collect(viaA.resubscribeTask({ tenant: '', id }), () => sdkOpen());
    await within(5_000, 'the SDK stream on A opens', sdkOpened);

    const changes: [NodeProcess, object][] = [
      [
        B,
        {
          state: WORKING,
          message: { parts: [{ text: 'B: started' }] },
          artifacts: [{ artifactId: 'draft', name: 'draft', parts: [{ text: 'v1' }] }],
        },
      ],
      [
        C,
        {
          state: WORKING,
          message: { parts: [{ text: 'C: half way' }] },
          artifacts: [{ artifactId: 'draft', name: 'draft', parts: [{ text: 'v2' }] }],
        },
      ],
      [B, { state: WORKING, message: { parts: [{ text: 'B: nearly there' }] } }],
      [
        C,
        {
          state: COMPLETED,
          message: { parts: [{ text: 'C: done' }] },
          artifacts: [{ artifactId: 'final', name: 'final', parts: [{ text: 'v3' }] }],
        },
      ],
    ];
    for (const [node, body] of changes) expect((await respond(node, id, body)).status, node.name).toBe(200);

    const live = await raw.waitEnd(10_000);
    expect(raw.error).toBeUndefined();
    const updates = live.slice(1);
    expect(updates.map((e) => e.id)).toEqual(updates.map((_, i) => i + 2)); // 2, 3, 4, …: no gap, no duplicate
    expect(
      updates.map((e) => [
        kindOf(e.data.result),
        stateOf(e.data.result) ?? e.data.result.artifactUpdate?.artifact.parts[0].text,
      ]),
    ).toEqual([
      ['artifactUpdate', 'v1'],
      ['statusUpdate', WORKING],
      ['artifactUpdate', 'v2'],
      ['statusUpdate', WORKING],
      ['statusUpdate', WORKING],
      ['artifactUpdate', 'v3'],
      ['statusUpdate', COMPLETED],
    ]);
    expect(
      updates
        .filter((e) => e.data.result.statusUpdate)
        .map((e) => e.data.result.statusUpdate.status.message?.parts[0].text),
    ).toEqual(['B: started', 'C: half way', 'B: nearly there', 'C: done']);
    // The live stream is the task's log as every node replays it.
    expect(await replay(B, id, alice.token)).toEqual(updates);
    const sdkSeen = await within(5_000, 'the SDK stream on A ends', sdkStream);
    expect(sdkSeen.map((e) => kindOf(e))).toEqual(['task', ...updates.map((e) => kindOf(e.data.result))]);
    expect(sdkSeen.slice(1).map(stateOf)).toEqual(updates.map((e) => stateOf(e.data.result)));
  });

  it('4b. a stream opened with sendMessageStream on A sees every one of many responds made at once through A, B and C, in seq order, with no gap', async () => {
    const viaA = await sdkClient(bobBase(A), alice.token);
    const PER_NODE = 4;
    let answers: Promise<{ status: number; body: any }[]> | undefined;
    let id = '';
    const seen = await within(
      15_000,
      'the sendMessageStream on A ends',
      collect(viaA.sendMessageStream(sendRequest('many hands')), async (json) => {
        if (!json.task) return;
        id = json.task.id;
        // Twelve changes at once on one task through three processes: the version's compare-and-set
        // decides between nodes, and each loser retries; then the last one ends the task.
        answers = Promise.all(
          nodes.flatMap((node) =>
            Array.from({ length: PER_NODE }, (_, k) =>
              respond(node, id, { state: WORKING, message: { parts: [{ text: `${node.name}-${k}` }] } }),
            ),
          ),
        ).then(async (all) => [
          ...all,
          await respond(B, id, { state: COMPLETED, message: { parts: [{ text: 'the end' }] } }),
        ]);
      }),
    );
    const results = await answers!;
    expect(
      results.map((r) => r.status),
      JSON.stringify(results.filter((r) => r.status !== 200).map((r) => r.body)),
    ).toEqual(results.map(() => 200));
    expect(seen[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
    const updates = seen.slice(1);
    expect(updates.every((e) => e.statusUpdate)).toBe(true);
    const said = updates.map((e) => e.statusUpdate.status.message.parts[0].text);
    expect(said.at(-1)).toBe('the end');
    expect(said.slice(0, -1).sort()).toEqual(
      nodes.flatMap((n) => Array.from({ length: PER_NODE }, (_, k) => `${n.name}-${k}`)).sort(),
    );
    // The same stream as raw SSE, replayed through C: ids 2, 3, … with the same events in the same order.
    const log = await replay(C, id, alice.token);
    expect(log.map((e) => e.id)).toEqual(log.map((_, i) => i + 2));
    expect(log.map((e) => e.data.result.statusUpdate.status.message.parts[0].text)).toEqual(said);
    const task = (await rest(A, 'GET', `api/tasks/${id}`, { token: alice.token })).body;
    expect(texts(task.history)).toEqual(['many hands', ...said]);
  });

  it('5. a cancel through B ends a stream held on C: its last event is the canceled status, and the iterator finishes', async () => {
    const id = await newTask(A, 'cancel me while C follows');
    const raw = await openSse(bobBase(C), 'SubscribeToTask', { id }, { token: bob.token });
    await raw.waitFor(1);
    const viaC = await sdkClient(bobBase(C), alice.token);
    let sdkOpen!: () => void;
    const sdkOpened = new Promise<void>((r) => (sdkOpen = r));
    const sdkStream = collect(viaC.resubscribeTask({ tenant: '', id }), () => sdkOpen());
    await within(5_000, 'the SDK stream on C opens', sdkOpened);

    const canceled = await rest(B, 'POST', `api/tasks/${id}/cancel`, {
      token: alice.token,
      body: { reason: 'not needed' },
    });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status.state).toBe('TASK_STATE_CANCELED');

    const sdkSeen = await within(5_000, 'the SDK stream on C finishes after the cancel', sdkStream);
    expect(sdkSeen.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_CANCELED']);
    expect(kindOf(sdkSeen.at(-1))).toBe('statusUpdate');
    const events = await raw.waitEnd(5_000);
    expect(events.map((e) => e.id)).toEqual([1, 2]);
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('6. compare-and-set responds through two and three nodes at once: one wins, the others get 409 CONFLICT, and the task shows the winner', async () => {
    const rounds: NodeProcess[][] = [
      [A, B],
      [B, C],
      [C, A],
      [A, B, C],
      [B, C, A],
      [C, A, B],
    ];
    for (const [round, racers] of rounds.entries()) {
      const id = await newTask(A, `race ${round}`);
      // WORKING from SUBMITTED, and WORKING again, are both legal: only expectedState can refuse one.
      const answers = await Promise.all(
        racers.map((node) =>
          respond(node, id, {
            state: WORKING,
            expectedState: 'TASK_STATE_SUBMITTED',
            message: { parts: [{ text: `won on ${node.name}` }] },
          }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.slice().sort(), `round ${round}: ${JSON.stringify(answers.map((a) => a.body))}`).toEqual([
        200,
        ...racers.slice(1).map(() => 409),
      ]);
      const winner = racers[statuses.indexOf(200)]!;
      for (const loser of answers.filter((a) => a.status !== 200)) {
        expect(loser.body.error).toMatchObject({ code: 'CONFLICT', status: 409, currentState: WORKING });
      }
      const read = await rest(C, 'GET', `api/tasks/${id}`, { token: alice.token });
      expect(read.body.status.state).toBe(WORKING);
      expect(read.body.status.message.parts[0].text).toBe(`won on ${winner.name}`);
      expect(texts(read.body.history)).toEqual([`race ${round}`, `won on ${winner.name}`]);
    }
  });

  it('6b. the same respond with the same Idempotency-Key sent through three nodes at once is applied once, and every sender gets the answer', async () => {
    for (const [round, state] of [WORKING, COMPLETED, WORKING, COMPLETED].entries()) {
      const id = await newTask(A, `retried respond ${round}`);
      const body = { state, message: { parts: [{ text: `once ${round}` }] } };
      const answers = await Promise.all(
        nodes.map((node) =>
          rest(node, 'POST', `api/tasks/${id}/respond`, {
            token: bob.token,
            body,
            headers: { 'idempotency-key': `retry-${round}` },
          }),
        ),
      );
      expect(
        answers.map((a) => a.status),
        `round ${round} (${state}): ${JSON.stringify(answers.map((a) => a.body.error ?? a.body.status))}`,
      ).toEqual([200, 200, 200]);
      for (const a of answers) expect(a.body.status.state).toBe(state);
      const read = await rest(B, 'GET', `api/tasks/${id}`, { token: alice.token });
      expect(texts(read.body.history)).toEqual([`retried respond ${round}`, `once ${round}`]);
      expect((await replay(C, id, alice.token)).length).toBe(1);
    }
  });

  it('7. a token rotated through A is refused on B and C at the very next request, and a stream it opened on C is closed', async () => {
    const dan = await register(A, 'rotating-dan', {}, ADMIN_TOKEN);
    const id = await newTask(B, 'a task dan follows', dan);
    const stream = await openSse(bobBase(C), 'SubscribeToTask', { id }, { token: dan.token });
    await stream.waitFor(1);
    for (const node of [B, C])
      expect((await rest(node, 'GET', 'api/me', { token: dan.token })).status, node.name).toBe(200); // any cache is warm

    const rotated = await rest(A, 'POST', 'api/agents/rotating-dan/token', { token: dan.token });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.token as string;
    const next = await Promise.all([B, C].map((node) => rest(node, 'GET', 'api/me', { token: dan.token })));
    expect(next.map((r) => r.status)).toEqual([401, 401]);
    expect(next[0]!.headers.get('www-authenticate')).toContain('Bearer');
    expect((await rpc(bobBase(C), 'GetTask', { id }, { token: dan.token })).status).toBe(401);
    for (const node of [B, C])
      expect((await rest(node, 'GET', 'api/me', { token: fresh })).body, node.name).toMatchObject({
        kind: 'agent',
        handle: 'rotating-dan',
      });

    await stream.waitEnd(5_000); // closed without any further change to the task
    expect((await respond(B, id, { state: WORKING, message: { parts: [{ text: 'after rotation' }] } })).status).toBe(
      200,
    );
    await sleep(200);
    expect(JSON.stringify(stream.events)).not.toContain('after rotation');

    // Revoking through B reaches A and C the same way.
    const listed = await rest(C, 'GET', 'api/agents/rotating-dan/tokens', { token: fresh });
    const live = listed.body.tokens.filter((t: any) => !t.revokedAt);
    expect(live).toHaveLength(1);
    expect((await rest(B, 'DELETE', `api/agents/rotating-dan/tokens/${live[0].id}`, { token: fresh })).status).toBe(
      204,
    );
    const afterRevoke = await Promise.all([A, C].map((node) => rest(node, 'GET', 'api/me', { token: fresh })));
    expect(afterRevoke.map((r) => r.status)).toEqual([401, 401]);
  });

  it('7c. SendMessage and GetTask, which check the token in their own statement, refuse a token revoked through another node at once, and write nothing', async () => {
    const eve = await register(A, 'revoked-eve', {}, ADMIN_TOKEN);
    const id = await newTask(B, 'before the revocation', eve);
    const message = (text: string, extra: object = {}) => ({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
    });
    const legacy = { headers: { 'a2a-version': '0.3' } };
    // Every node has seen the token, so each knows whose it is without asking the database.
    for (const node of nodes) {
      expect((await rpc(bobBase(node), 'GetTask', { id }, { token: eve.token })).status, node.name).toBe(200);
      expect(
        (
          await rpc(
            bobBase(node),
            'message/send',
            {
              message: {
                kind: 'message',
                messageId: crypto.randomUUID(),
                role: 'user',
                parts: [{ kind: 'text', text: 'warm' }],
              },
            },
            { token: eve.token, ...legacy },
          )
        ).status,
        node.name,
      ).toBe(200);
    }
    const sentBefore = (await sql('SELECT count(*)::int AS n FROM tasks WHERE sender = $1', ['revoked-eve']))[0].n;
    const live = (await rest(A, 'GET', 'api/agents/revoked-eve/tokens', { token: eve.token })).body.tokens.filter(
      (t: any) => !t.revokedAt,
    );
    expect((await rest(A, 'DELETE', `api/agents/revoked-eve/tokens/${live[0].id}`, { token: eve.token })).status).toBe(
      204,
    );

    for (const node of [B, C]) {
      const answers = await Promise.all([
        rpc(bobBase(node), 'SendMessage', message('a new task after the revocation'), { token: eve.token }),
        rpc(bobBase(node), 'SendMessage', message('a follow-up after the revocation', { taskId: id }), {
          token: eve.token,
        }),
        rpc(bobBase(node), 'GetTask', { id }, { token: eve.token }),
        rpc(bobBase(node), 'GetTask', { id: 'no-such-task' }, { token: eve.token }),
        rpc(
          bobBase(node),
          'SendMessage',
          { message: { messageId: 'x', role: 'ROLE_USER', parts: [] } },
          { token: eve.token },
        ),
        rpc(
          bobBase(node),
          'message/send',
          {
            message: {
              kind: 'message',
              messageId: crypto.randomUUID(),
              role: 'user',
              parts: [{ kind: 'text', text: 'legacy' }],
            },
          },
          { token: eve.token, ...legacy },
        ),
        rpc(bobBase(node), 'tasks/get', { id }, { token: eve.token, ...legacy }),
      ]);
      expect(
        answers.map((a) => a.status),
        `${node.name}: ${JSON.stringify(answers.map((a) => a.body.error?.message))}`,
      ).toEqual([401, 401, 401, 401, 401, 401, 401]);
      for (const a of answers) expect(a.body.error.data[0].reason).toBe('UNAUTHENTICATED');
    }
    expect((await sql('SELECT count(*)::int AS n FROM tasks WHERE sender = $1', ['revoked-eve']))[0].n).toBe(
      sentBefore,
    );
    const read = await rpc(bobBase(A), 'GetTask', { id }, { token: bob.token });
    expect(texts(read.body.result.history)).toEqual(['before the revocation']);
  });

  it('7b. three rotations of one agent at once through the three nodes leave one live token, as one rotation does', async () => {
    await register(C, 'double-rotate', {}, ADMIN_TOKEN);
    for (let round = 1; round <= 10; round++) {
      const rotations = await Promise.all(
        nodes.map((node) => rest(node, 'POST', 'api/agents/double-rotate/token', { token: ADMIN_TOKEN })),
      );
      expect(rotations.map((r) => r.status)).toEqual([200, 200, 200]);
      const tokens = (await rest(C, 'GET', 'api/agents/double-rotate/tokens', { token: ADMIN_TOKEN })).body
        .tokens as any[];
      const works = await Promise.all(
        rotations.map(async (r) => (await rest(A, 'GET', 'api/me', { token: r.body.token })).status),
      );
      expect({ round, live: tokens.filter((t) => !t.revokedAt).length, works: works.sort() }).toEqual({
        round,
        live: 1,
        works: [200, 401, 401],
      });
    }
  });

  it('8. a review task with a short deadline is evaluated once by the three schedulers: one Evaluation, one terminal status', async () => {
    const [poster, first, second] = await Promise.all([
      register(A, 'review-poster', {}, ADMIN_TOKEN),
      register(B, 'review-one', {}, ADMIN_TOKEN),
      register(C, 'review-two', {}, ADMIN_TOKEN),
    ]);
    const request = reviewRequest(2_500, { question: 'Is a review with three schedulers evaluated exactly once?' });
    const posted = await sendData(await sdkClient(A.url, poster.token), openData(request));
    expect(posted.status.state).toBe(WORKING);
    const id = posted.id as string;
    // Anyone may follow a review: one anonymous stream on each node, from before the deadline.
    const streams = await Promise.all(nodes.map((node) => openSse(node.url, 'SubscribeToTask', { id })));
    await Promise.all(streams.map((s) => s.waitFor(1)));
    await sendData(await sdkClient(B.url, first.token), contribution('source_supported'), id);
    await sendData(await sdkClient(C.url, second.token), contribution('source_supported'), id);
    expect(Date.now()).toBeLessThan(Date.parse(request.deadline)); // the contributions came in time

    for (const [i, stream] of streams.entries()) {
      const events = await stream.waitEnd(10_000);
      expect(
        events.map((e) => kindOf(e.data.result)),
        nodes[i]!.name,
      ).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
      expect(events[1]!.data.result.artifactUpdate.artifact.name).toBe('Evaluation');
      expect(events[2]!.data.result.statusUpdate.status.state).toBe(COMPLETED);
      expect(events.slice(1).map((e) => e.id)).toEqual([events[0]!.id! + 1, events[0]!.id! + 2]);
    }
    await sleep(1_000); // a second evaluation would have shown by now (schedulers poll every 250 ms)
    for (const node of nodes) {
      const all = await replay(node, id, undefined, node.url);
      const evaluations = all.filter((e) => e.data.result.artifactUpdate?.artifact.name === 'Evaluation');
      const terminal = all.filter((e) =>
        ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED'].includes(e.data.result.statusUpdate?.status.state),
      );
      expect([evaluations.length, terminal.length], node.name).toEqual([1, 1]);
      expect(all.at(-1)).toBe(terminal[0]);
    }
    const done = (await rpc(B.url, 'GetTask', { id })).body.result;
    expect(done.status.state).toBe(COMPLETED);
    expect(done.artifacts).toHaveLength(1);
    expect(done.artifacts[0].parts[1].data).toMatchObject({ outcome: 'resolved', contribution_count: 2 });
    expect(Date.parse(done.status.timestamp) - Date.parse(request.deadline)).toBeLessThan(2_000);
    expect(await sql('SELECT task_id FROM due_work WHERE task_id = $1', [id])).toEqual([]);
  });

  it('8b. a contribution retried through the three nodes at once (the same messageId, twice on each) is one entry, and every answer carries its receipt', async () => {
    const poster = await register(B, 'retry-poster', {}, ADMIN_TOKEN);
    const posted = await sendData(
      await sdkClient(B.url, poster.token),
      openData(reviewRequest(600_000, { question: 'Is a retried contribution kept once?' })),
    );
    const id = posted.id as string;
    for (const round of [1, 2, 3, 4]) {
      const agent = await register(A, `retry-contributor-${round}`, {}, ADMIN_TOKEN);
      const params = dataParams(contribution('source_supported'), id);
      const answers = await Promise.all(
        [...nodes, ...nodes].map((node) => rpc(node.url, 'SendMessage', params, { token: agent.token })),
      );
      const receipts = answers.map(
        (a) =>
          a.body.result?.task?.metadata?.muster?.receipt?.contribution?.id ?? `error ${JSON.stringify(a.body.error)}`,
      );
      expect(new Set(receipts).size, `round ${round}: ${receipts.join(' | ')}`).toBe(1);
      expect(receipts[0]).not.toMatch(/^error/);
    }
    const [{ n }] = await sql('SELECT count(*)::int AS n FROM task_entries WHERE task_id = $1', [id]);
    expect(n).toBe(4);
  });

  it('8c. the limit of 2 open review tasks per poster holds across nodes: 3 posted at once through A, B and C, 2 accepted', async () => {
    const poster = await register(C, 'held-poster', {}, ADMIN_TOKEN);
    const answers = await Promise.all(
      nodes.map((node, i) =>
        rpc(
          node.url,
          'SendMessage',
          dataParams(
            openData(reviewRequest(600_000, { question: `Which of three posts at once is kept, number ${i}?` })),
          ),
          { token: poster.token },
        ),
      ),
    );
    const accepted = answers.filter((a) => a.body.result?.task);
    const refused = answers.filter((a) => a.body.error);
    expect(
      [accepted.length, refused.length],
      JSON.stringify(answers.map((a) => a.body.error ?? a.body.result.task.status.state)),
    ).toEqual([2, 1]);
    expect(refused[0]!.body.error.data[0].reason).toBe('RATE_LIMITED');
  });

  it('9. push: the changes made through the three nodes are each delivered once, in order, signed with a key every node publishes', async () => {
    const hook = await startWebhook();
    try {
      const id = await newTask(A, 'push me');
      const config = await rpc(
        bobBase(B),
        'CreateTaskPushNotificationConfig',
        { taskId: id, id: 'many-nodes-hook', url: hook.url, token: 'hook-token' },
        { token: alice.token },
      );
      expect(config.body.result?.url, JSON.stringify(config.body)).toBe(hook.url);
      const artifact = (artifactId: string, text: string) => ({ artifactId, name: artifactId, parts: [{ text }] });
      expect((await respond(A, id, { state: WORKING, message: { parts: [{ text: 'A: on it' }] } })).status).toBe(200);
      expect((await respond(C, id, { state: WORKING, artifacts: [artifact('part-1', 'one')] })).status).toBe(200);
      expect(
        (await respond(B, id, { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'B: which one?' }] } }))
          .status,
      ).toBe(200);
      const followUp = wire(
        await (await sdkClient(bobBase(C), alice.token)).sendMessage(sendRequest('the first one', { taskId: id })),
      );
      expect(followUp.status.state).toBe(WORKING);
      expect((await respond(A, id, { state: WORKING, artifacts: [artifact('part-2', 'two')] })).status).toBe(200);
      expect(
        (
          await respond(B, id, {
            state: COMPLETED,
            message: { parts: [{ text: 'B: done' }] },
            artifacts: [artifact('part-3', 'three')],
          })
        ).status,
      ).toBe(200);

      const log = await replay(C, id, alice.token); // what was pushed must be exactly this, in this order
      expect(log.length).toBeGreaterThanOrEqual(8);
      const received = await hook.waitFor(log.length, 15_000);
      await sleep(2_000); // room for a duplicate to arrive
      expect(hook.received).toHaveLength(log.length);
      expect(received.map((r) => JSON.parse(r.body))).toEqual(log.map((e) => e.data.result));

      const keys = received.map((r) => String(r.headers['idempotency-key']));
      expect(new Set(keys).size).toBe(keys.length);
      const outbox = await rest(A, 'GET', `api/tasks/${id}/deliveries`, { token: alice.token });
      const deliveries = outbox.body.deliveries as any[];
      expect(deliveries.map((d) => [d.state, d.attempts])).toEqual(deliveries.map(() => ['delivered', 1]));
      const seqOf = new Map(deliveries.map((d) => [d.id, d.seq]));
      expect(keys.map((k) => seqOf.get(k))).toEqual(log.map((e) => e.id)); // by event seq, in receipt order
      for (const node of nodes) {
        const keySet = (await rest(node, 'GET', '.well-known/jwks.json')).body;
        for (const r of received) {
          expect(r.headers['x-a2a-notification-token']).toBe('hook-token');
          await expect(
            verifyDetached(String(r.headers['muster-signature']), r.body, keySet),
            `signature checked with ${node.name}'s JWKS`,
          ).resolves.toBeTruthy();
        }
      }
    } finally {
      await hook.close();
    }
  });

  it('9a. push under a burst: many changes at once through the three nodes, the first event failing twice: each event is taken once, in log order', async () => {
    const hook = await startWebhook((n) => (n <= 2 ? 503 : 200));
    try {
      const id = await newTask(B, 'push a burst');
      const config = await rpc(
        bobBase(C),
        'CreateTaskPushNotificationConfig',
        { taskId: id, id: 'burst-hook', url: hook.url },
        { token: alice.token },
      );
      expect(config.body.result?.id, JSON.stringify(config.body)).toBe('burst-hook');
      const answers = await Promise.all(
        nodes.flatMap((node) =>
          [0, 1, 2].map((k) =>
            respond(node, id, { state: WORKING, message: { parts: [{ text: `${node.name}-${k}` }] } }),
          ),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect((await respond(A, id, { state: COMPLETED })).status).toBe(200);
      const log = await replay(A, id, alice.token);
      expect(log).toHaveLength(10);
      await hook.waitFor(log.length + 2, 15_000);
      await sleep(1_500); // room for a duplicate to arrive
      const taken = hook.received.filter((_, n) => n >= 2); // the two 503s were the first event's first attempts
      expect(hook.received).toHaveLength(log.length + 2);
      expect(hook.received[0]!.headers['idempotency-key']).toBe(taken[0]!.headers['idempotency-key']);
      expect(hook.received[1]!.headers['idempotency-key']).toBe(taken[0]!.headers['idempotency-key']);
      expect(taken.map((r) => JSON.parse(r.body))).toEqual(log.map((e) => e.data.result));
      expect(new Set(taken.map((r) => r.headers['idempotency-key'])).size).toBe(log.length);
      const deliveries = (await rest(B, 'GET', `api/tasks/${id}/deliveries`, { token: alice.token })).body
        .deliveries as any[];
      expect(deliveries.map((d) => [d.seq, d.state, d.attempts])).toEqual(
        log.map((e, i) => [e.id, 'delivered', i === 0 ? 3 : 1]),
      );
    } finally {
      await hook.close();
    }
  });

  it('9c. forwarding: control proven across nodes (a challenge is taken once), then each new task, sent through any node, is forwarded once', async () => {
    const endpoint = await startA2AEndpoint({ failFirst: 1 });
    try {
      const own = await register(A, 'fwd-many', { endpoint: endpoint.base }, ADMIN_TOKEN);
      const challenge = await rest(B, 'POST', 'api/agents/fwd-many/endpoint/challenge', { token: own.token });
      expect(challenge.status).toBe(200);
      endpoint.serveChallenge(challenge.body.challenge);
      const verifies = await Promise.all(
        [C, A].map((node) => rest(node, 'POST', 'api/agents/fwd-many/endpoint/verify', { token: own.token })),
      );
      expect(verifies.map((v) => v.status).sort(), JSON.stringify(verifies.map((v) => v.body))).toEqual([200, 409]);
      const on = await rest(B, 'PUT', 'api/agents/fwd-many/forwarding', { token: own.token, body: { enabled: true } });
      expect(on.body).toMatchObject({ enabled: true, available: true });
      expect((await rest(C, 'GET', 'api/agents/fwd-many/forwarding', { token: own.token })).body).toMatchObject({
        enabled: true,
        available: true,
      });

      const ids: string[] = [];
      for (const node of nodes) ids.push(await newTask(node, `forward me from ${node.name}`, alice, 'fwd-many'));
      const forwarded = await eventually(
        'three forwards',
        async () => {
          const tasks = await Promise.all(
            ids.map(async (id) => (await rest(A, 'GET', `api/tasks/${id}`, { token: alice.token })).body),
          );
          return tasks.every((t) => t.metadata?.muster?.forwarding?.state === 'delivered') ? tasks : undefined;
        },
        15_000,
      );
      await sleep(1_000); // room for a second forward of any of them
      const byTask = endpoint.received.map((r) => r.body.params.message.metadata.muster.taskId);
      expect(byTask.slice().sort()).toEqual(ids.slice().sort());
      expect(new Set(endpoint.received.map((r) => r.headers['idempotency-key'])).size).toBe(3);
      expect(forwarded.map((t) => t.metadata.muster.forwarding.attempts).sort()).toEqual([1, 1, 2]); // the endpoint refused its first call
    } finally {
      await endpoint.close();
    }
  });

  it('9d. the cap of 10 push configs per caller and task holds when 13 are set at once through the three nodes', async () => {
    for (const round of [1, 2, 3]) {
      const id = await newTask(A, `many hooks at once ${round}`);
      const answers = await Promise.all(
        Array.from({ length: 13 }, (_, i) =>
          rpc(
            bobBase(nodes[i % 3]!),
            'CreateTaskPushNotificationConfig',
            { taskId: id, id: `cap-${i}`, url: `http://127.0.0.1:9/hook-${i}` },
            { token: alice.token },
          ),
        ),
      );
      const set = answers.filter((a) => a.body.result);
      const refused = answers.filter((a) => a.body.error);
      const listed = (await rpc(bobBase(B), 'ListTaskPushNotificationConfigs', { taskId: id }, { token: alice.token }))
        .body.result;
      const stored = (listed.configs ?? listed).length;
      expect({ round, set: set.length, refused: refused.length, stored }).toEqual({
        round,
        set: 10,
        refused: 3,
        stored: 10,
      });
      for (const r of refused) expect(r.body.error.code).toBe(-32029);
    }
  });

  it('9b. LISTEN connections cut under the nodes: each says so, streams still get every change (polling), and they listen again', async () => {
    const listeners = async () =>
      (
        await sql(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'muster-listen %'",
        )
      ).length;
    expect(await listeners()).toBe(3);
    const id = await newTask(A, 'followed while the line is down');
    const stream = await openSse(bobBase(A), 'SubscribeToTask', { id }, { token: alice.token });
    await stream.waitFor(1);
    const eve = await register(B, 'cut-eve', {}, ADMIN_TOKEN);
    const eveTask = await newTask(C, 'eve follows too', eve);
    const eveStream = await openSse(bobBase(A), 'SubscribeToTask', { id: eveTask }, { token: eve.token });
    await eveStream.waitFor(1);

    await sql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'muster-listen %'",
    );
    // Changed through B and C while A may not be listening: A's streams must still hear it.
    expect((await respond(B, id, { state: WORKING, message: { parts: [{ text: 'while cut' }] } })).status).toBe(200);
    expect((await rest(C, 'POST', 'api/agents/cut-eve/token', { token: eve.token })).status).toBe(200);
    const heard = await stream.waitFor(2, 5_000);
    expect(heard[1]!.data.result.statusUpdate.status.message.parts[0].text).toBe('while cut');
    await eveStream.waitEnd(5_000); // the rotation closed eve's stream on A, too

    for (const node of nodes) {
      const said = await eventually(
        `${node.name} says it listens again`,
        async () => (/listening on PostgreSQL again/.test(node.output()) ? node.output() : undefined),
        10_000,
      );
      expect(said).toMatch(/lost the PostgreSQL LISTEN connection/);
    }
    expect(
      await eventually(
        'three LISTEN connections again',
        async () => ((await listeners()) === 3 ? true : undefined),
        5_000,
      ),
    ).toBe(true);
    // And live notifications work again: the final change reaches the stream at once.
    expect((await respond(C, id, { state: COMPLETED })).status).toBe(200);
    const events = await stream.waitEnd(3_000);
    expect(events.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(stateOf(events[2]!.data.result)).toBe(COMPLETED);
  });

  it('10. a node killed with SIGKILL under load: the others carry on, and every acknowledged task is readable with its message', async () => {
    const senders = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => register(nodes[i % 3]!, `load-sender-${i}`, {}, ADMIN_TOKEN)),
    );
    const targets = await Promise.all(
      [1, 2, 3, 4].map((i) => register(nodes[i % 3]!, `load-target-${i}`, {}, ADMIN_TOKEN)),
    );
    const TOTAL = 300;
    const KILL_AT = 100;
    const PARALLEL = 6;
    type Outcome = {
      i: number;
      node: NodeProcess;
      sender: Registered;
      target: string;
      afterKill: boolean;
      taskId?: string;
      error?: string;
    };
    const outcomes: Outcome[] = [];
    let next = 0;
    let killed: Promise<unknown> | undefined;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        if (i === KILL_AT) {
          C.child.kill('SIGKILL');
          killed = C.exited;
        }
        const node = nodes[i % 3]!;
        const sender = senders[i % 5]!;
        const target = targets[Math.floor(i / 5) % 4]!.handle; // 20 pairs, 15 requests each
        const outcome: Outcome = { i, node, sender, target, afterKill: !C.alive };
        try {
          const { status, body } = await rpc(
            `${node.url}agents/${target}/`,
            'SendMessage',
            { message: { messageId: `load-${i}`, role: 'ROLE_USER', parts: [{ text: `load message ${i}` }] } },
            { token: sender.token },
          );
          if (status === 200 && body.result?.task?.id) outcome.taskId = body.result.task.id;
          else outcome.error = `HTTP ${status} ${JSON.stringify(body)}`;
        } catch (e) {
          outcome.error = `${(e as Error).message} ${String(((e as Error).cause as Error | undefined)?.message ?? '')}`;
        }
        outcomes.push(outcome);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    expect(killed).toBeDefined();
    expect(await within(5_000, 'C exits', killed!)).toBe('SIGKILL');

    const survivors = outcomes.filter((o) => o.node !== C);
    expect(survivors.filter((o) => o.error).map((o) => `${o.node.name} #${o.i}: ${o.error}`)).toEqual([]);
    expect(survivors.filter((o) => o.afterKill && o.taskId).length).toBeGreaterThan(100); // they kept answering
    const deadAfterKill = outcomes.filter((o) => o.node === C && o.afterKill);
    expect(deadAfterKill.length).toBeGreaterThan(50);
    expect(deadAfterKill.filter((o) => o.taskId)).toEqual([]); // nothing answers on a dead node…
    expect(deadAfterKill.every((o) => /fetch failed|ECONNREFUSED|ECONNRESET|socket|closed/i.test(o.error ?? ''))).toBe(
      true,
    ); // …it just refuses connections

    const acknowledged = outcomes.filter((o) => o.taskId);
    expect(acknowledged.length).toBeGreaterThanOrEqual(survivors.length); // every request to A and B, and C's before it died
    const unreadable: string[] = [];
    let k = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (;;) {
          const o = acknowledged[k++];
          if (!o) return;
          const reader = k % 2 ? A : B;
          const { status, body } = await rpc(
            `${reader.url}agents/${o.target}/`,
            'GetTask',
            { id: o.taskId },
            { token: o.sender.token },
          );
          const first = body?.result?.history?.[0];
          if (
            status !== 200 ||
            body.result.id !== o.taskId ||
            first?.messageId !== `load-${o.i}` ||
            first?.parts?.[0]?.text !== `load message ${o.i}`
          ) {
            unreadable.push(
              `#${o.i} (acknowledged by ${o.node.name}) read on ${reader.name}: ${status} ${JSON.stringify(body).slice(0, 300)}`,
            );
          }
        }
      }),
    );
    expect(unreadable).toEqual([]);

    // The survivors still hear each other: a change made through A reaches a stream held on B.
    const id = await newTask(A, 'after the crash');
    const stream = await openSse(bobBase(B), 'SubscribeToTask', { id }, { token: alice.token });
    await stream.waitFor(1);
    expect((await respond(A, id, { state: COMPLETED })).status).toBe(200);
    const events = await stream.waitEnd(5_000);
    expect(events.map((e) => stateOf(e.data.result))).toEqual(['TASK_STATE_SUBMITTED', COMPLETED]);
    for (const node of [A, B]) expect((await rest(node, 'GET', 'health')).body.status).toBe('ok');
  });

  it('no node logged an error or a warning but the expected ones (no failed request, delivery or scheduled work)', () => {
    // 9b cut the LISTEN connections on purpose; a delivery a test's receiver refused is its warning, not the hub's failure.
    const expected = /lost the PostgreSQL LISTEN connection|listening on PostgreSQL again|^delivery failed/;
    const stderr = nodes.flatMap((n) =>
      n
        .output()
        .split('\n')
        .filter((line) => line.startsWith(`[${n.name} err]`)),
    );
    expect(stderr).toEqual([]);
    const warnings = nodes.flatMap((n) =>
      logLines(n.output()).filter((line) => Number(line['level']) >= 40 && !expected.test(String(line['msg']))),
    );
    expect(warnings).toEqual([]);
  });
});
