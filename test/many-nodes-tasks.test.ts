/**
 * Tasks on three real `muster serve` processes (A, B, C) sharing one PostgreSQL database: a task
 * sent through one node is answered through another and read through the third, one messageId
 * makes one task and the rate limit holds across nodes, streams held on one node see every change
 * made through the others in order, and responds raced through several nodes are applied once.
 * Runs only when MUSTER_TEST_PG names a server (see helpers/postgres.ts).
 */
import { StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { awayFromWindowEdge, register, rest, rpc, type Registered } from './helpers/hub.js';
import {
  ADMIN_TOKEN,
  bobBase,
  COMPLETED,
  expectOnlyExpectedLogs,
  kindOf,
  stateOf,
  texts,
  threeNodes,
  WORKING,
} from './helpers/many-nodes.js';
import { openSse, within, type NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

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

describe.skipIf(!testPostgres)('tasks and streams on three nodes of one PostgreSQL database', () => {
  const many = threeNodes('many_nodes_tasks');
  const { nodes, sql, respond, newTask, replay } = many;
  let A: NodeProcess, B: NodeProcess, C: NodeProcess;
  let alice: Registered, bob: Registered;

  beforeAll(() => {
    ({ A, B, C, alice, bob } = many.parties());
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

  it('no node logged an error or a warning (no failed request, delivery or scheduled work)', () => {
    expectOnlyExpectedLogs(nodes);
  });
});
