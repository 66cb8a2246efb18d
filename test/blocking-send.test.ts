/**
 * Blocking SendMessage to an agent (A2A 1.0: it waits unless returnImmediately is true): it waits
 * whoever the target is (here: a verified forwarding endpoint, a real little A2A server that
 * answers through the hub's respond when a task reaches it; and an agent with nothing attached),
 * until the task ends or needs input, bounded by MUSTER_BLOCKING_WAIT_S; when the wait runs out the
 * answer is the task as it stands, with metadata.muster.wait, through every binding. On SQLite, or
 * PostgreSQL under MUSTER_TEST_PG; and with the sender and the answerer on two nodes of one
 * PostgreSQL database.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardingAgent, startA2AEndpoint } from './helpers/a2a-endpoint.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';
import { postRpc, sseBlocks } from './helpers/sse.js';

const WAIT_S = 3;
/** What the little agent does with each task forwarded to it, by the task's first text. */
type Answer = { after: number; body: object } | undefined;

/** A real A2A server that answers each forwarded task through `node`'s respond, as `plan` says, after a pause. */
async function answeringAgent(node: () => { url: string }, token: () => string, plan: (text: string) => Answer) {
  return startA2AEndpoint({
    onReceive: (body) => {
      const answer = plan(body.params.message.parts[0].text);
      const taskId = body.params.message.metadata.muster.taskId;
      if (answer)
        setTimeout(
          () => void rest(node(), 'POST', `api/tasks/${taskId}/respond`, { token: token(), body: answer.body }),
          answer.after,
        );
    },
  });
}

const plan = (text: string): Answer => {
  if (text.startsWith('complete'))
    return {
      after: 300,
      body: {
        state: 'TASK_STATE_COMPLETED',
        message: { parts: [{ text: 'done' }] },
        artifacts: [{ artifactId: 'out', parts: [{ text: 'result' }] }],
      },
    };
  if (text.startsWith('ask'))
    return { after: 300, body: { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'which one?' }] } } };
  if (text.startsWith('reply'))
    return { after: 300, body: { reply: { messageId: `r-${text}`, parts: [{ text: 'a plain answer' }] } } };
  return undefined; // 'ignore': never answered
};

const message = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const timed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
  const start = Date.now();
  const value = await run();
  return [value, Date.now() - start];
};

describe('blocking SendMessage on one hub', () => {
  let hub: TestHub;
  let alice: Registered;
  let bob: Registered;
  let fwd: Registered;
  let endpoint: Awaited<ReturnType<typeof startA2AEndpoint>>;
  const fwdBase = () => `${hub.url}agents/fwd/`;

  beforeAll(async () => {
    hub = await startTestHub({
      MUSTER_ALLOW_PRIVATE_TARGETS: '1',
      MUSTER_DELIVERY_RETRIES: '1,1,2',
      MUSTER_BLOCKING_WAIT_S: String(WAIT_S),
    });
    alice = await register(hub, 'alice');
    bob = await register(hub, 'bob');
    endpoint = await answeringAgent(
      () => hub,
      () => fwd.token,
      plan,
    );
    fwd = await forwardingAgent(hub, 'fwd', endpoint);
  });
  afterAll(async () => {
    await endpoint.close();
    await hub.destroy();
  });

  it('waits while the target has a verified forwarding endpoint: the SDK gets the completed task with its artifact', async () => {
    const asAlice = await sdkClient(fwdBase(), alice.token);
    const [task, ms] = await timed(async () => wire(await asAlice.sendMessage(sendRequest('complete this'))));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0].parts[0].text).toBe('result');
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(WAIT_S * 1000);
  });

  it("ends the wait at INPUT_REQUIRED, and answers an agent's Message reply with that Message", async () => {
    const asked = await rpc(fwdBase(), 'SendMessage', { message: message('ask me') }, { token: alice.token });
    expect(asked.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.body.result.task.status.message.parts[0].text).toBe('which one?');
    const replied = await rpc(fwdBase(), 'SendMessage', { message: message('reply please') }, { token: alice.token });
    expect(replied.body.result).toEqual({
      message: expect.objectContaining({
        messageId: 'r-reply please',
        role: 'ROLE_AGENT',
        parts: [{ text: 'a plain answer' }],
      }),
    });
  });

  it('answers at once with returnImmediately', async () => {
    const now = await rpc(
      fwdBase(),
      'SendMessage',
      { message: message('complete later'), configuration: { returnImmediately: true } },
      { token: alice.token },
    );
    // Not timed (a loaded machine makes any bound flaky): the answer shows the task before the agent
    // completed it, with no wait reported, and the task does complete afterwards, so a wait would
    // have answered COMPLETED.
    const task = now.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(task.metadata.muster.wait).toBeUndefined();
    const state = async () =>
      (await rpc(fwdBase(), 'GetTask', { id: task.id }, { token: alice.token })).body.result.status.state;
    await expect.poll(state, { timeout: WAIT_S * 1000 }).toBe('TASK_STATE_COMPLETED');
  });

  it('waits for an agent with nothing attached too, then says in the answer that the wait ran out: JSON-RPC 1.0 and 0.3, HTTP+JSON alike', async () => {
    const bobBase = `${hub.url}agents/bob/`;
    const ran = { ranOut: true, seconds: WAIT_S };
    const [[v1, v03, http], ms] = await timed(() =>
      Promise.all([
        rpc(bobBase, 'SendMessage', { message: message('nobody is listening') }, { token: alice.token }),
        rpc(
          bobBase,
          'message/send',
          {
            message: {
              kind: 'message',
              messageId: randomUUID(),
              role: 'user',
              parts: [{ kind: 'text', text: 'nor here' }],
            },
            configuration: { blocking: true },
          },
          { token: alice.token },
        ),
        rest(hub, 'POST', 'agents/bob/message:send', {
          token: alice.token,
          body: { message: message('nor over HTTP+JSON') },
        }),
      ]),
    );
    expect(ms).toBeGreaterThanOrEqual(WAIT_S * 1000 - 100);
    expect(v1.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(v1.body.result.task.metadata.muster).toMatchObject({ to: 'bob', wait: ran });
    expect(v03.body.result.status.state).toBe('submitted');
    expect(v03.body.result.metadata.muster.wait).toEqual(ran);
    expect(http.status).toBe(200);
    expect(http.body.task.metadata.muster.wait).toEqual(ran);
    // The note is the answer's, not the task's: a read of the task has none.
    const read = await rpc(bobBase, 'GetTask', { id: v1.body.result.task.id }, { token: alice.token });
    expect(read.body.result.metadata.muster.wait).toBeUndefined();
  });

  it('returns the settled task when an agent with nothing attached answers during the wait (through respond)', async () => {
    const sent = timed(() =>
      rpc(`${hub.url}agents/bob/`, 'SendMessage', { message: message('answer me, bob') }, { token: alice.token }),
    );
    const waiting = async (): Promise<string> => {
      for (;;) {
        const inbox = await rest(hub, 'GET', 'api/inbox', { token: bob.token });
        const mine = inbox.body.data.find((t: any) => t.lastMessage?.parts[0]?.text === 'answer me, bob');
        if (mine) return mine.id;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const id = await waiting();
    await rest(hub, 'POST', `api/tasks/${id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'here I am' }] } },
    });
    const [res, ms] = await sent;
    expect(res.body.result.task).toMatchObject({
      id,
      status: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'here I am' }] } },
    });
    expect(res.body.result.task.metadata.muster.wait).toBeUndefined();
    expect(ms).toBeLessThan(WAIT_S * 1000);
  });

  it('0.3 message/send waits only with blocking: true', async () => {
    const send03 = (text: string, configuration?: object) =>
      rpc(
        fwdBase(),
        'message/send',
        {
          message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] },
          ...(configuration ? { configuration } : {}),
        },
        { token: alice.token },
      );
    expect((await send03('complete a')).body.result.status.state).toBe('submitted');
    expect((await send03('complete b', { blocking: false })).body.result.status.state).toBe('submitted');
    const blocked = await send03('complete c', { blocking: true });
    expect([blocked.body.result.kind, blocked.body.result.status.state]).toEqual(['task', 'completed']);
  });

  it('honours historyLength in the blocking answer', async () => {
    const none = await rpc(
      fwdBase(),
      'SendMessage',
      { message: message('complete, no history'), configuration: { historyLength: 0 } },
      { token: alice.token },
    );
    expect(none.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(none.body.result.task.history).toBeUndefined();
    const one = await rpc(
      fwdBase(),
      'SendMessage',
      { message: message('complete, one message'), configuration: { historyLength: 1 } },
      { token: alice.token },
    );
    expect(one.body.result.task.history.map((m: any) => m.parts[0].text)).toEqual(['done']);
    const all = await rpc(fwdBase(), 'SendMessage', { message: message('complete, all') }, { token: alice.token });
    expect(all.body.result.task.history.map((m: any) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
  });

  it('waits no longer than MUSTER_BLOCKING_WAIT_S, then answers the task as it stands', async () => {
    const [res, ms] = await timed(() =>
      rpc(fwdBase(), 'SendMessage', { message: message('ignore me') }, { token: alice.token }),
    );
    expect(res.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(res.body.result.task.metadata.muster.wait).toEqual({ ranOut: true, seconds: WAIT_S });
    expect(ms).toBeGreaterThanOrEqual(WAIT_S * 1000 - 100);
    expect(ms).toBeLessThan(WAIT_S * 1000 + 2000);
  });

  it('SendStreamingMessage never waits before its stream: the task comes first, at once, then the answer', async () => {
    const controller = new AbortController();
    const res = await postRpc(
      fwdBase(),
      'SendStreamingMessage',
      { message: message('complete, streamed') },
      { token: alice.token, signal: controller.signal },
    );
    const reader = res.body!.getReader();
    const seen: any[] = [];
    for await (const block of sseBlocks(reader)) {
      if (block.data) seen.push(block.data.result);
      if (block.data?.result?.statusUpdate?.status.state === 'TASK_STATE_COMPLETED') break;
    }
    controller.abort();
    // A stream that waited for the agent (it answers after 300 ms) would open on the task as it
    // ended; this one opens on the task as it was sent, and the answer follows in the stream.
    expect(seen[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('passes acceptedOutputModes on to the forwarded endpoint', async () => {
    await rpc(
      fwdBase(),
      'SendMessage',
      { message: message('complete with modes'), configuration: { acceptedOutputModes: ['text/markdown'] } },
      { token: alice.token },
    );
    const forwarded = endpoint.received.find((r) => r.body.params.message.parts[0].text === 'complete with modes');
    expect(forwarded?.body.params.configuration.acceptedOutputModes).toEqual(['text/markdown']);
  });

  it('the agent card says when a send waits', async () => {
    const card = (await rest(hub, 'GET', 'agents/fwd/.well-known/agent-card.json')).body;
    const description = card.skills.find((s: any) => s.id === 'direct-task').description;
    expect(description).toMatch(/waits for the answer unless configuration\.returnImmediately is true/);
    expect(description).toMatch(/metadata\.muster\.wait/);
    expect(description).not.toMatch(/can answer/);
  });
});

describe.skipIf(!testPostgres)('blocking SendMessage across two nodes of one PostgreSQL database', () => {
  const ADMIN = 'blocking-nodes-admin';
  const env = {
    MUSTER_ADMIN_TOKEN: ADMIN,
    MUSTER_ALLOW_PRIVATE_TARGETS: '1',
    MUSTER_DELIVERY_RETRIES: '1,1,2',
    MUSTER_BLOCKING_WAIT_S: '10',
  };
  const { nodes } = clusterOnPostgres('blocking_send', ['A', 'B'], (db) => ({ db, env, startMs: 30_000 }));
  let A: NodeProcess, B: NodeProcess;
  let alice: Registered;
  let fwd: Registered;
  let endpoint: Awaited<ReturnType<typeof startA2AEndpoint>>;

  beforeAll(async () => {
    [A, B] = nodes as [NodeProcess, NodeProcess];
    alice = await register(A, 'nodes-alice', {}, ADMIN);
    // The agent answers through B; the sender waits on A.
    endpoint = await answeringAgent(
      () => B,
      () => fwd.token,
      plan,
    );
    fwd = await forwardingAgent(A, 'nodes-fwd', endpoint, ADMIN);
  });
  afterAll(() => endpoint.close());

  it('a send through A waits for the answer the agent gives through B', async () => {
    const [res, ms] = await timed(() =>
      rpc(
        `${A.url}agents/nodes-fwd/`,
        'SendMessage',
        { message: message('complete across nodes') },
        { token: alice.token },
      ),
    );
    expect(res.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(res.body.result.task.artifacts[0].parts[0].text).toBe('result');
    expect(ms).toBeLessThan(10_000);
  });
});
