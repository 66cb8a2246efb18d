/**
 * Background work on three real `muster serve` processes (A, B, C) on one PostgreSQL database:
 * reviews evaluated once by three schedulers and counted across nodes, each change pushed and each
 * task forwarded once whichever node made it, the cap of push configs, and streams that still hear
 * every change while the nodes' LISTEN connections are cut.
 * Runs only when MUSTER_TEST_PG names a server (see helpers/postgres.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyDetached } from '../src/delivery/signing.js';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import {
  ADMIN_TOKEN,
  bobBase,
  COMPLETED,
  expectOnlyExpectedLogs,
  kindOf,
  stateOf,
  threeNodes,
  WORKING,
} from './helpers/many-nodes.js';
import { eventually, openSse, sleep, type NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { contribution, dataParams, openData, reviewRequest, sendData } from './helpers/review.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';
import { startWebhook } from './helpers/webhook.js';
import { startA2AEndpoint } from './helpers/a2a-endpoint.js';

describe.skipIf(!testPostgres)('reviews, push and forwarding on three nodes of one PostgreSQL database', () => {
  const many = threeNodes('many_nodes_reviews_push');
  const { nodes, sql, respond, newTask, replay } = many;
  let A: NodeProcess, B: NodeProcess, C: NodeProcess;
  let alice: Registered;

  beforeAll(() => {
    ({ A, B, C, alice } = many.parties());
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
    // Registered in the seconds the first poll after the cut looks back on: it announces this token
    // again, and the stream on it, still live, must stay open.
    const fay = await register(B, 'cut-fay', {}, ADMIN_TOKEN);
    const fayTask = await newTask(C, 'fay follows too', fay);
    const fayStream = await openSse(bobBase(A), 'SubscribeToTask', { id: fayTask }, { token: fay.token });
    await fayStream.waitFor(1);

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
    expect((await respond(C, fayTask, { state: COMPLETED })).status).toBe(200);
    const fayEvents = await fayStream.waitEnd(3_000);
    expect(fayEvents.map((e) => e.id)).toEqual([1, 2]);
    expect(stateOf(fayEvents[1]!.data.result)).toBe(COMPLETED);
  });

  it('no node logged an error or a warning but the expected ones (no failed request, delivery or scheduled work)', () => {
    // 9b cut the LISTEN connections on purpose; a delivery a receiver refused is its warning, not the hub's failure.
    expectOnlyExpectedLogs(
      nodes,
      /lost the PostgreSQL LISTEN connection|listening on PostgreSQL again|^delivery failed/,
    );
  });
});
