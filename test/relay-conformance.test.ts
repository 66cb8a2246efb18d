/**
 * Every agent a complete A2A server: an agent with no endpoint of its own, served by a real
 * `muster attach --exec` running a small script (test/fixtures/conformance-agent.mjs), used by
 * the official SDK client over each binding it speaks (JSON-RPC, HTTP+JSON, gRPC), through the
 * scenarios the conformance kit's reference agent plays: complete with a message, each artifact
 * kind, a Message reply, input-required then complete, reject, cancel, a stream of chunked
 * artifacts, resubscribe mid-task, history lengths, a push config on a task that completes,
 * blocking and non-blocking sends, -32005. On PostgreSQL, the same with the sender on one node
 * and the attached agent on another.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  ListTasksRequest,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  type Message,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { grpcClient, restClient } from './helpers/bindings.js';
import { spawnMuster } from './helpers/cli.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { sdkClient } from './helpers/sdk.js';
import { startWebhook } from './helpers/webhook.js';

const script = fileURLToPath(new URL('./fixtures/conformance-agent.mjs', import.meta.url));
const BINDINGS = { 'JSON-RPC': sdkClient, 'HTTP+JSON': restClient, gRPC: grpcClient } as const;
type Binding = keyof typeof BINDINGS;

/** A send as wire JSON: blocking unless told, with the configuration given. */
const request = (
  text: string,
  configuration: Record<string, unknown> = {},
  extra: { taskId?: string; parts?: unknown[] } = {},
) =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: extra.parts ?? [{ text }],
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
    },
    configuration,
  });
const asJson = (answer: Task | Message): any =>
  'status' in answer ? Task.toJSON(answer as Task) : { message: answer };
const stateOf = (e: any): string | undefined => e.task?.status?.state ?? e.statusUpdate?.status?.state;

/** `muster attach` holding `handle`'s live inbox at `hubUrl`, resolved once it holds it. */
async function attach(
  hubUrl: string,
  handle: string,
  token: string,
): Promise<{ child: ChildProcess; said: () => string }> {
  const child = spawnMuster(hubUrl, ['attach', handle, '--exec', `node ${script}`, '--json'], token);
  let said = '';
  child.stdout!.on('data', (d: Buffer) => (said += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (said += d.toString()));
  const end = Date.now() + 20_000;
  while (!said.includes('holding the live inbox')) {
    if (Date.now() > end || child.exitCode !== null)
      throw new Error(`muster attach did not take the live inbox:\n${said}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, said: () => said };
}

/** The scenarios every binding plays against the attached agent. */
function scenarios(
  binding: Binding,
  setup: () => { client: () => Client; hookUrl: () => string; hook: () => Awaited<ReturnType<typeof startWebhook>> },
) {
  const client = () => setup().client();

  it(`${binding}: a blocking send waits for the agent and answers the completed task with its message and artifact`, async () => {
    const task = asJson(await client().sendMessage(request('complete this')));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe('Hello World!');
    expect(task.artifacts).toEqual([
      expect.objectContaining({ artifactId: 'response', parts: [{ text: 'You said: complete this' }] }),
    ]);
  });

  it(`${binding}: a send with returnImmediately answers at once, and the agent's answer follows`, async () => {
    const task = asJson(await client().sendMessage(request('slow 300', { returnImmediately: true })));
    expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    for (let i = 0; i < 200; i++) {
      const now = Task.toJSON(await client().getTask({ tenant: '', id: task.id })) as any;
      if (now.status.state === 'TASK_STATE_COMPLETED') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the task never completed');
  });

  it(`${binding}: each artifact kind (text, data, url file, raw bytes), with the sender's acceptedOutputModes passed on`, async () => {
    const task = asJson(
      await client().sendMessage(request('artifacts', { acceptedOutputModes: ['text/plain', 'application/json'] })),
    );
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const parts = Object.fromEntries(task.artifacts.map((a: any) => [a.artifactId, a.parts[0]]));
    expect(parts.text).toEqual({ text: 'plain words' });
    expect(parts.data).toEqual({ data: { answer: 42, modes: ['text/plain', 'application/json'] } });
    expect(parts.file).toEqual({
      url: 'https://files.example.com/report.pdf',
      mediaType: 'application/pdf',
      filename: 'report.pdf',
    });
    expect(parts.bytes).toMatchObject({ raw: Buffer.from('PNG?').toString('base64'), mediaType: 'image/png' });
  });

  it(`${binding}: an agent's Message reply is the send's answer, and the task records it COMPLETED`, async () => {
    const answer = asJson(await client().sendMessage(request('reply please')));
    expect(answer.message).toBeDefined();
    expect(answer.message.role === 'ROLE_AGENT' || answer.message.role === 2).toBe(true);
    expect(answer.message.parts[0].content?.value ?? answer.message.parts[0].text).toBe('a plain answer');
  });

  it(`${binding}: input-required ends the wait; the follow-up's blocking send answers the completed task`, async () => {
    const asked = asJson(await client().sendMessage(request('ask me')));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.status.message.parts[0].text).toBe('Which one?');
    const done = asJson(await client().sendMessage(request('the blue one', {}, { taskId: asked.id })));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.status.message.parts[0].text).toBe('thanks for: the blue one');
  });

  it(`${binding}: the agent rejects`, async () => {
    const task = asJson(await client().sendMessage(request('reject this')));
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
  });

  it(`${binding}: cancel a task the agent is still working on`, async () => {
    const task = asJson(await client().sendMessage(request('slow 20000', { returnImmediately: true })));
    const canceled = Task.toJSON(await client().cancelTask({ tenant: '', id: task.id, metadata: undefined })) as any;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  });

  it(`${binding}: a stream shows the chunked artifact as sent (artifactId, append, lastChunk) and ends COMPLETED`, async () => {
    const events: any[] = [];
    for await (const event of client().sendMessageStream(request('chunks')))
      events.push(StreamResponse.toJSON(event as StreamResponse));
    const chunks = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate);
    expect(
      chunks.map((c) => [c.artifact.artifactId, c.artifact.parts[0].text, c.append ?? false, c.lastChunk ?? false]),
    ).toEqual([
      ['log', 'one ', false, false],
      ['log', 'two ', true, false],
      ['log', 'three', true, true],
    ]);
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
    const task = Task.toJSON(await client().getTask({ tenant: '', id: chunks[0].taskId })) as any;
    expect(task.artifacts[0].parts.map((p: any) => p.text).join('')).toBe('one two three');
  });

  it(`${binding}: resubscribe mid-task: the task as it stands, then its end`, async () => {
    const task = asJson(await client().sendMessage(request('slow 1500', { returnImmediately: true })));
    const events: any[] = [];
    for await (const event of client().resubscribeTask({ tenant: '', id: task.id }))
      events.push(StreamResponse.toJSON(event as StreamResponse));
    expect(events[0].task.id).toBe(task.id);
    expect(events[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
  });

  it(`${binding}: history lengths in the blocking answer and in GetTask`, async () => {
    const asked = asJson(await client().sendMessage(request('ask again')));
    const done = asJson(await client().sendMessage(request('red', { historyLength: 1 }, { taskId: asked.id })));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.history).toHaveLength(1);
    const none = asJson(await client().getTask({ tenant: '', id: asked.id, historyLength: 0 }));
    expect(none.history ?? []).toEqual([]);
    const all = asJson(await client().getTask({ tenant: '', id: asked.id }));
    expect(all.history.length).toBeGreaterThanOrEqual(4); // ask, which one?, red, thanks
  });

  it(`${binding}: a push config on a task that completes is called with the completed task`, async () => {
    const task = asJson(await client().sendMessage(request('slow 800', { returnImmediately: true })));
    await client().createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({
        taskId: task.id,
        id: `hook-${binding}`,
        url: setup().hookUrl(),
        token: 'push-secret',
      }),
    );
    const hook = setup().hook();
    const end = Date.now() + 15_000;
    for (;;) {
      const completed = hook.received.find((r) => r.body.includes(task.id) && r.body.includes('TASK_STATE_COMPLETED'));
      if (completed) {
        expect(completed.headers['x-a2a-notification-token'] ?? completed.headers['authorization']).toBeDefined();
        return;
      }
      if (Date.now() > end) throw new Error(`no push of the completed task; got ${hook.received.length} requests`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it(`${binding}: a part the agent does not take is refused with ContentTypeNotSupportedError (-32005), nothing stored`, async () => {
    const before = (await client().listTasks(ListTasksRequest.fromJSON({ pageSize: 100 }))).tasks.length;
    const sent = client().sendMessage(
      request('', {}, { parts: [{ raw: Buffer.from('x').toString('base64'), mediaType: 'image/png' }] }),
    );
    await expect(sent).rejects.toBeInstanceOf(ContentTypeNotSupportedError);
    expect((await client().listTasks(ListTasksRequest.fromJSON({ pageSize: 100 }))).tasks.length).toBe(before);
  });
}

/** The hub's blocking wait on one hub: long enough for the attached agent's answers, short for the send nobody answers. */
const WAIT_S = 6;

describe('an agent behind muster attach, on one hub', () => {
  let hub: TestHub;
  let alice: Registered;
  let attached: Awaited<ReturnType<typeof attach>>;
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  const clients = {} as Record<Binding, Client>;

  beforeAll(async () => {
    hub = await startTestHub({
      MUSTER_GRPC_PORT: '0',
      MUSTER_ALLOW_PRIVATE_TARGETS: '1',
      MUSTER_RATE_LIMITS: 'off',
      MUSTER_BLOCKING_WAIT_S: String(WAIT_S),
    });
    alice = await register(hub, 'alice', {}, ADMIN_TOKEN);
    const bob = await register(hub, 'bob', {}, ADMIN_TOKEN);
    hook = await startWebhook();
    attached = await attach(hub.url, 'bob', bob.token);
    for (const [name, make] of Object.entries(BINDINGS))
      clients[name as Binding] = await make(`${hub.url}agents/bob/`, alice.token);
  }, 30_000);
  afterAll(async () => {
    attached?.child.kill('SIGTERM');
    await hook?.close();
    await hub?.destroy();
  });

  for (const binding of Object.keys(BINDINGS) as Binding[]) {
    describe(binding, () =>
      scenarios(binding, () => ({ client: () => clients[binding], hookUrl: () => hook.url, hook: () => hook })),
    );
  }

  it("without a live inbox a blocking send waits out the hub's wait, and every binding says in its answer that it ran out", async () => {
    attached.child.kill('SIGTERM');
    await new Promise((r) => attached.child.once('exit', r));
    const start = Date.now();
    const bindings = Object.keys(BINDINGS) as Binding[];
    const tasks = await Promise.all(
      bindings.map(async (b) => asJson(await clients[b].sendMessage(request(`complete this over ${b}`)))),
    );
    expect(Date.now() - start).toBeGreaterThanOrEqual(WAIT_S * 1000 - 100);
    for (const task of tasks) {
      expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
      expect(task.metadata.muster.wait).toEqual({ ranOut: true, seconds: WAIT_S });
    }
  });
});

describe.runIf(testPostgres)('on PostgreSQL: the sender on node A, the attached agent on node B', () => {
  const admin = 'relay-nodes-admin';
  const cluster = clusterOnPostgres('relay_nodes', ['A', 'B'], (db) => ({
    db,
    env: {
      MUSTER_ADMIN_TOKEN: admin,
      MUSTER_GRPC_PORT: '0',
      MUSTER_ALLOW_PRIVATE_TARGETS: '1',
      MUSTER_RATE_LIMITS: 'off',
      MUSTER_BLOCKING_WAIT_S: String(WAIT_S),
    },
    startMs: 30_000,
  }));
  let attached: Awaited<ReturnType<typeof attach>>;
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  const clients = {} as Record<Binding, Client>;

  beforeAll(async () => {
    const [A, B] = cluster.nodes as [NodeProcess, NodeProcess];
    const sender = await register(A, 'nodes-alice', {}, admin);
    const agent = await register(B, 'nodes-bob', {}, admin);
    hook = await startWebhook();
    attached = await attach(B.url, 'nodes-bob', agent.token);
    for (const [name, make] of Object.entries(BINDINGS))
      clients[name as Binding] = await make(`${A.url}agents/nodes-bob/`, sender.token);
  }, 30_000);
  afterAll(async () => {
    attached?.child.kill('SIGTERM');
    await hook?.close();
  });

  for (const binding of Object.keys(BINDINGS) as Binding[]) {
    describe(binding, () =>
      scenarios(binding, () => ({ client: () => clients[binding], hookUrl: () => hook.url, hook: () => hook })),
    );
  }
});
