/**
 * Forwarding both ways, against real A2A servers built on the official SDK: the hub speaks each
 * endpoint's own protocol, follows its task until it ends, and the sender sees the endpoint's
 * answer through a blocking send, GetTask and a stream; follow-ups and a cancel reach the remote
 * task; a refused forward fails the task in words. On PostgreSQL a second node shares the
 * database, and the sender talks to it: the following may run on either node, once.
 */
import express from 'express';
import { listenLocally } from './helpers/local-server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from './helpers/config.js';
import { silentLogger } from '../src/observability/logger.js';
import { startHub, type RunningHub } from '../src/server.js';
import { testDialect } from './helpers/database.js';
import { ADMIN_TOKEN, register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { MANY, ownEndpointAgent, startOwnEndpoint, type Protocol } from './helpers/own-endpoint.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';
import { Message, TaskState } from '@a2a-js/sdk';

const ENV = { MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_DELIVERY_RETRIES: '1,1', MUSTER_BLOCKING_WAIT_S: '15' };
let hub: TestHub;
/** The node the sender talks to: a second one on the same database on PostgreSQL, else the hub itself. */
let node: RunningHub;
let alice: Registered;
const endpoints: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  hub = await startTestHub(ENV);
  node =
    testDialect === 'postgres'
      ? await startHub(
          resolveConfig({ port: '0', host: '127.0.0.1', db: hub.db.url }, { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, ...ENV }),
          { logger: silentLogger() },
        )
      : hub;
  alice = await register(hub, 'alice');
});
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  if (node !== hub) await node.close();
  await hub.destroy();
});

async function endpointAgent(handle: string, protocol: Protocol, named: 'base' | 'card' = 'base', streams = true) {
  const endpoint = await startOwnEndpoint(protocol, { streams });
  endpoints.push(endpoint);
  await ownEndpointAgent(hub, handle, endpoint, named);
  return endpoint;
}

const getTask = async (handle: string, id: string) =>
  (
    await rpc(
      `${node.url}agents/${handle}/`,
      'GetTask',
      { id },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    )
  ).body.result;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const textsOf = (parts: { text?: string }[] | undefined) => (parts ?? []).map((p) => p.text).join(' ');

describe('forwarding to any A2A server, both ways', () => {
  it.each([
    ['JSONRPC/1.0', 'base', 'streaming'],
    ['HTTP+JSON/1.0', 'card', 'streaming'],
    ['JSONRPC/0.3', 'base', 'streaming'],
    ['JSONRPC/1.0', 'base', 'polling'],
    ['JSONRPC/0.3', 'card', 'polling'],
  ] as const)(
    'speaks %s to an endpoint named by its %s, following its task by %s; a blocking send and GetTask carry its answer',
    async (protocol, named, following) => {
      const handle = `own-${protocol.replace(/[^a-z0-9]/gi, '').toLowerCase()}-${named}-${following}`;
      const endpoint = await endpointAgent(handle, protocol, named, following === 'streaming');
      const client = await sdkClient(`${node.url}agents/${handle}/`, alice.token);
      const answer = wire(await client.sendMessage(sendRequest('summarize the draft')));
      expect(answer.status.state).toBe('TASK_STATE_COMPLETED');
      expect(textsOf(answer.status.message?.parts)).toBe('done: summarize the draft');
      expect(answer.artifacts?.map((a: any) => textsOf(a.parts))).toEqual(['worked: summarize the draft']);
      expect(endpoint.received.map((m) => m.parts[0]?.content?.value)).toEqual(['summarize the draft']);
      const read = await getTask(handle, answer.id);
      expect(read.status.state).toBe('TASK_STATE_COMPLETED');
      expect(read.metadata.muster.forwarding).toMatchObject({
        state: 'delivered',
        following,
        remoteTaskId: expect.any(String),
      });
    },
  );

  it('an endpoint whose card says it streams but which refuses to is followed by reading its task', async () => {
    const endpoint = await startOwnEndpoint('JSONRPC/1.0', { streams: false, claimsStreams: true });
    endpoints.push(endpoint);
    await ownEndpointAgent(hub, 'own-no-stream', endpoint);
    const client = await sdkClient(`${node.url}agents/own-no-stream/`, alice.token);
    const answer = wire(await client.sendMessage(sendRequest('work without a stream')));
    expect(answer.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await getTask('own-no-stream', answer.id)).metadata.muster.forwarding.following).toBe('polling');
  });

  it('an endpoint that pushes and does not stream pushes its task to the hub, with the token its forward carried', async () => {
    const endpoint = await startOwnEndpoint('JSONRPC/1.0', { streams: false, push: true });
    endpoints.push(endpoint);
    await ownEndpointAgent(hub, 'own-push', endpoint);
    const client = await sdkClient(`${node.url}agents/own-push/`, alice.token);
    // The endpoint answers the forward with its task working, and completes it later: only its push can tell the hub within the wait.
    const answer = wire(await client.sendMessage(sendRequest('push it')));
    expect(answer.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.artifacts?.map((a: any) => textsOf(a.parts))).toEqual(['worked: push it']);
    expect((await getTask('own-push', answer.id)).metadata.muster.forwarding.following).toBe('push');
  });

  it("a push without the hub's token for that task is refused and changes nothing", async () => {
    const sent = await rpc(
      `${node.url}agents/own-push/`,
      'SendMessage',
      {
        message: { messageId: 'forged-1', role: 'ROLE_USER', parts: [{ text: 'ask first' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    );
    const id = sent.body.result.task.id;
    const asked = await until(
      () => getTask('own-push', id),
      (t) => t.status.state === 'TASK_STATE_INPUT_REQUIRED',
    );
    const forged = { task: { id, contextId: asked.contextId, status: { state: 'TASK_STATE_COMPLETED' } } };
    for (const token of [undefined, 'x..y']) {
      const res = await rest(node, 'POST', `api/forwarded/${id}/push`, {
        body: forged,
        ...(token ? { headers: { 'x-a2a-notification-token': token } } : {}),
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
    expect((await getTask('own-push', id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it.each(['streaming', 'polling'] as const)(
    'more artifacts and parts than one write takes arrive whole, before the end (%s)',
    async (following) => {
      await endpointAgent(`own-many-${following}`, 'JSONRPC/1.0', 'base', following === 'streaming');
      const client = await sdkClient(`${node.url}agents/own-many-${following}/`, alice.token);
      const answer = wire(await client.sendMessage(sendRequest('many pieces')));
      expect(answer.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answer.artifacts.map((a: any) => a.parts.length)).toEqual(Array(MANY).fill(MANY));
      expect(answer.artifacts[MANY - 1].parts[MANY - 1].text).toBe(`${MANY - 1}.${MANY - 1}`);
    },
  );

  it("a cancel right after the send reaches the endpoint's task, or the forward never goes out", async () => {
    const endpoint = await endpointAgent('own-quick-cancel', 'JSONRPC/1.0');
    const sent = await rpc(
      `${node.url}agents/own-quick-cancel/`,
      'SendMessage',
      {
        message: { messageId: 'qc-1', role: 'ROLE_USER', parts: [{ text: 'hold everything' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    );
    const id = sent.body.result.task.id;
    await rpc(
      `${node.url}agents/own-quick-cancel/`,
      'CancelTask',
      { id },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    );
    const settled = await until(
      async () => ({ task: await getTask('own-quick-cancel', id), received: endpoint.received.length }),
      ({ task, received }) => received === 0 || task.metadata.muster.forwarding?.remoteTaskId !== undefined,
    );
    if (settled.received === 0)
      return expect((await getTask('own-quick-cancel', id)).status.state).toBe('TASK_STATE_CANCELED');
    const remote = settled.task.metadata.muster.forwarding.remoteTaskId;
    expect(
      await until(
        () => endpoint.stateOf(remote),
        (s) => s === TaskState.TASK_STATE_CANCELED,
      ),
    ).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a stream on another node carries the working status, the artifact and the end', async () => {
    await endpointAgent('own-stream', 'JSONRPC/1.0');
    const client = await sdkClient(`${node.url}agents/own-stream/`, alice.token);
    const seen: any[] = [];
    for await (const event of client.sendMessageStream(sendRequest('stream this'))) seen.push(event);
    const cases = seen.map((e) => e.payload.$case);
    expect(cases[0]).toBe('task');
    expect(cases).toContain('artifactUpdate');
    const last = seen[seen.length - 1]!.payload;
    expect(last.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('an input-required round trip: the follow-up reaches the remote task in its protocol (0.3)', async () => {
    const endpoint = await endpointAgent('own-ask', 'JSONRPC/0.3');
    const client = await sdkClient(`${node.url}agents/own-ask/`, alice.token);
    const asked = wire(await client.sendMessage(sendRequest('ask about the format')));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textsOf(asked.status.message?.parts)).toBe('Which format do you want?');
    const done = wire(
      await client.sendMessage(sendRequest('pdf please', { taskId: asked.id, contextId: asked.contextId })),
    );
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textsOf(done.status.message?.parts)).toBe('done: pdf please');
    const remote = (await getTask('own-ask', asked.id)).metadata.muster.forwarding.remoteTaskId;
    expect(endpoint.received.map((m) => m.parts[0]?.content?.value)).toEqual(['ask about the format', 'pdf please']);
    expect(endpoint.received[1]!.taskId).toBe(remote); // the follow-up named the endpoint's own task
  });

  it("the sender's cancel reaches the remote task", async () => {
    const endpoint = await endpointAgent('own-hold', 'HTTP+JSON/1.0');
    const sent = await rpc(
      `${node.url}agents/own-hold/`,
      'SendMessage',
      {
        message: { messageId: 'hold-1', role: 'ROLE_USER', parts: [{ text: 'hold on' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    );
    const id = sent.body.result.task.id;
    const working = await until(
      () => getTask('own-hold', id),
      (t) => t.status.state === 'TASK_STATE_WORKING',
    );
    expect(textsOf(working.status.message?.parts)).toBe('On it');
    const canceled = await rpc(
      `${node.url}agents/own-hold/`,
      'CancelTask',
      { id },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    );
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    const remote = working.metadata.muster.forwarding.remoteTaskId;
    expect(
      await until(
        () => endpoint.stateOf(remote),
        (s) => s === TaskState.TASK_STATE_CANCELED,
      ),
    ).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a plain Message from the endpoint is the answer', async () => {
    await endpointAgent('own-reply', 'JSONRPC/1.0');
    const client = await sdkClient(`${node.url}agents/own-reply/`, alice.token);
    const answer = await client.sendMessage(sendRequest('reply briefly'));
    expect('parts' in answer && Message.toJSON(answer)).toMatchObject({
      role: 'ROLE_AGENT',
      parts: [{ text: 'replied: reply briefly' }],
    });
  });

  it('an endpoint that refuses the forward for good fails the task, with its error in words', async () => {
    const refusing = await refusingEndpoint();
    endpoints.push(refusing);
    const bob = await register(hub, 'refuser', { endpoint: refusing.base });
    const challenge = await rest(hub, 'POST', 'api/agents/refuser/endpoint/challenge', { token: bob.token });
    refusing.carry(challenge.body.extension);
    expect((await rest(hub, 'POST', 'api/agents/refuser/endpoint/verify', { token: bob.token })).status).toBe(200);
    expect(
      (await rest(hub, 'PUT', 'api/agents/refuser/forwarding', { token: bob.token, body: { enabled: true } })).status,
    ).toBe(200);
    const sent = await rpc(
      `${node.url}agents/refuser/`,
      'SendMessage',
      {
        message: { messageId: 'r-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    );
    const failed = await until(
      () => getTask('refuser', sent.body.result.task.id),
      (t) => t.status.state === 'TASK_STATE_FAILED',
    );
    expect(failed.status.state).toBe('TASK_STATE_FAILED');
    expect(textsOf(failed.status.message?.parts)).toBe(
      "refuser's own A2A endpoint refused the task: Method not found: SendMessage (-32601)",
    );
    expect(failed.metadata.muster.forwarding).toMatchObject({
      state: 'failed',
      attempts: 1,
      remoteError: { code: -32601 },
    });
    expect(refusing.calls()).toBe(1); // refused for good: not tried again
  });

  it('verification names what is missing when the card carries no challenge and nothing serves it', async () => {
    const endpoint = await startOwnEndpoint('JSONRPC/1.0');
    endpoints.push(endpoint);
    const carol = await register(hub, 'no-proof', { endpoint: endpoint.base });
    const challenge = await rest(hub, 'POST', 'api/agents/no-proof/endpoint/challenge', { token: carol.token });
    expect(challenge.body).toMatchObject({
      card: `${endpoint.base}.well-known/agent-card.json`,
      extension: { uri: 'urn:muster:endpoint-control:v1', params: { challenge: challenge.body.challenge } },
    });
    const refused = await rest(hub, 'POST', 'api/agents/no-proof/endpoint/verify', { token: carol.token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe(
      `The card at ${endpoint.base}.well-known/agent-card.json does not carry the challenge, and ${endpoint.base}.well-known/muster-challenge does not serve it`,
    );
  });
});

/** A real HTTP server whose card names 1.0 JSON-RPC, but whose JSON-RPC answers every call with -32601, as a 0.3-only server does. */
async function refusingEndpoint() {
  let calls = 0;
  const card: any = {
    name: 'Refuser',
    description: 'Speaks only 0.3 method names',
    version: '1',
    capabilities: { extensions: [] },
    skills: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    supportedInterfaces: [],
  };
  const app = express();
  app.get('/.well-known/agent-card.json', (_req, res) => void res.json(card));
  app.post('/rpc', express.json(), (req, res) => {
    calls += 1;
    res.json({
      jsonrpc: '2.0',
      id: req.body.id,
      error: { code: -32601, message: `Method not found: ${req.body.method}` },
    });
  });
  const { base, close } = await listenLocally(app);
  card.supportedInterfaces.push({ url: `${base}rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
  return {
    base,
    calls: () => calls,
    carry: (extension: unknown) => void card.capabilities.extensions.push(extension),
    close,
  };
}
