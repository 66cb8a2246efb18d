// @a2a-js/sdk 1.2.0 as the client of a Muster hub; the agent answering is `muster attach`.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListTasksRequest, SendMessageRequest, StreamResponse, Task, TaskPushNotificationConfig } from 'sdk12';
import { DefaultAgentCardResolver, type Client } from 'sdk12/client';
import { attach, type Attached } from '../lib/attach.js';
import { client12 } from '../lib/clients.js';
import { handle, register, startHub, until, type Agent, type Hub } from '../lib/hub.js';
import { startReceiver, type Receiver } from '../lib/receiver.js';

let hub: Hub;
let alice: Agent;
let bob: Agent;
let bobAgent: Attached;
let client: Client;
let receiver: Receiver;

type Json = any;
const request = (
  text: string,
  opts: { taskId?: string; contextId?: string; returnImmediately?: boolean; push?: Json } = {},
) =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
      ...(opts.contextId ? { contextId: opts.contextId } : {}),
    },
    configuration: {
      acceptedOutputModes: ['text/plain'],
      ...(opts.returnImmediately ? { returnImmediately: true } : {}),
      ...(opts.push ? { taskPushNotificationConfig: opts.push } : {}),
    },
  });
/** The wire JSON of what sendMessage answered (a Task, or a Message). */
const sendJson = async (req: SendMessageRequest): Promise<Json> => {
  const r = await client.sendMessage(req);
  if (!('status' in r)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(r)}`);
  return Task.toJSON(r as Task);
};
const getJson = async (id: string): Promise<Json> =>
  Task.toJSON(await client.getTask({ tenant: '', id, historyLength: undefined } as never));
const textOf = (m: Json) => (m?.parts ?? []).map((p: Json) => p.text ?? '').join('');
const settled = (id: string, states: string[]) =>
  until(`task ${id} in ${states.join('|')}`, async () => {
    const t = await getJson(id);
    return states.includes(t.status.state) ? t : undefined;
  });
const collect = async (stream: AsyncGenerator<StreamResponse>) => {
  const events: Json[] = [];
  for await (const e of stream) events.push(StreamResponse.toJSON(e));
  return events;
};

beforeAll(async () => {
  hub = await startHub();
  alice = await register(hub, handle('alice'));
  bob = await register(hub, handle('bob'));
  bobAgent = await attach(hub.url, bob.handle, bob.token);
  client = await client12(bob.a2a, alice.token);
  receiver = await startReceiver();
});
afterAll(async () => {
  await bobAgent?.stop();
  await receiver?.close();
  await hub?.stop();
});

describe('@a2a-js/sdk 1.2.0 client → Muster agent (muster attach)', () => {
  it('discovers the card from the agent base URL and picks the 1.0 JSON-RPC interface', async () => {
    const card = await new DefaultAgentCardResolver().resolve(bob.a2a);
    expect(card.name).toBe(bob.handle);
    const jsonrpc10 = card.supportedInterfaces.find(
      (i) => i.protocolBinding === 'JSONRPC' && i.protocolVersion.startsWith('1.'),
    );
    expect(jsonrpc10, JSON.stringify(card.supportedInterfaces)).toBeDefined();
    expect(new URL(jsonrpc10!.url).pathname).toBe(`/agents/${bob.handle}/`);
    expect(card.capabilities?.streaming).toBe(true);
    // The factory's client: getAgentCard() asks for the extended card when the card offers one.
    expect((await client.getAgentCard()).name).toBe(bob.handle);
  });

  it('sends with returnImmediately and reads the answer with GetTask', async () => {
    const sent = await sendJson(request('hello bob', { returnImmediately: true }));
    expect(sent.id).toBeTruthy();
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']).toContain(sent.status.state);
    const done = await settled(sent.id, ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED']);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(done.status.message)).toBe('echo: hello bob');
    expect(done.artifacts[0]).toMatchObject({ artifactId: 'answer', parts: [{ text: 'HELLO BOB' }] });
    expect(done.history.some((m: Json) => m.role === 'ROLE_USER' && textOf(m) === 'hello bob')).toBe(true);
  });

  it('a blocking SendMessage (the 1.0 default) answers with the finished task', async () => {
    const done = await sendJson(request('block please'));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(done.status.message)).toBe('echo: block please');
    expect(done.artifacts[0]).toMatchObject({ artifactId: 'answer', parts: [{ text: 'BLOCK PLEASE' }] });
  });

  it('SendStreamingMessage: the task first, then updates, closing after the terminal status', async () => {
    const events = await collect(client.sendMessageStream(request('stream it')));
    expect(events[0]).toHaveProperty('task');
    const last = events.at(-1);
    expect(last.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(last.statusUpdate.status.message)).toBe('echo: stream it');
    expect(events.find((e) => e.artifactUpdate)?.artifactUpdate.artifact).toMatchObject({
      artifactId: 'answer',
      parts: [{ text: 'STREAM IT' }],
    });
  });

  it('SubscribeToTask (resubscribeTask) follows a task still being worked on', async () => {
    const sent = await sendJson(request('slow 2 later words', { returnImmediately: true }));
    const events = await collect(client.resubscribeTask({ tenant: '', id: sent.id }));
    expect(events[0].task?.id).toBe(sent.id);
    expect(events.at(-1).statusUpdate).toMatchObject({ taskId: sent.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(textOf(events.at(-1).statusUpdate.status.message)).toBe('slowly done: later words');
  });

  it('CancelTask cancels a running task and reaches the agent', async () => {
    const sent = await sendJson(request('slow 30 never answered', { returnImmediately: true }));
    await new Promise((r) => setTimeout(r, 500));
    const canceled = Task.toJSON(
      await client.cancelTask({ tenant: '', id: sent.id, metadata: { reason: 'changed my mind' } } as never),
    );
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect((await getJson(sent.id)).status.state).toBe('TASK_STATE_CANCELED');
    const report = await until('attach to report the stopped run', async () =>
      bobAgent.reports().find((r) => r['taskId'] === sent.id),
    );
    expect(report, JSON.stringify(report)).toHaveProperty('stopped');
  });

  it('ListTasks pages the tasks the caller sent, filtered by context', async () => {
    const a = await sendJson(request('list one'));
    const b = await sendJson(request('list two', { contextId: a.contextId }));
    const other = await sendJson(request('list elsewhere'));
    const page = await client.listTasks(ListTasksRequest.fromJSON({ contextId: a.contextId, pageSize: 10 }));
    const ids = page.tasks.map((t) => t.id);
    expect(ids).toContain(a.id);
    expect(ids).toContain(b.id);
    expect(ids).not.toContain(other.id);
    const all = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 2 }));
    expect(all.tasks.length).toBe(2);
    expect(all.nextPageToken).toBeTruthy();
    const next = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 2, pageToken: all.nextPageToken }));
    expect(next.tasks.length).toBeGreaterThan(0);
    expect(next.tasks.map((t) => t.id)).not.toContain(all.tasks[0]!.id);
  });

  it('input-required round trip: the agent asks, the sender answers on the same task', async () => {
    const asked = await sendJson(request('ask me something'));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOf(asked.status.message)).toBe('Which chapter?');
    const answered = await sendJson(request('Chapter 2', { taskId: asked.id, contextId: asked.contextId }));
    expect(answered.id).toBe(asked.id);
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(answered.status.message)).toBe('thanks, noted: Chapter 2');
  });

  it('push: CreateTaskPushNotificationConfig, and the receiver gets 1.0 StreamResponses', async () => {
    const sent = await sendJson(request('slow 2 pushed words', { returnImmediately: true }));
    const token = `push-${randomUUID()}`;
    const config = TaskPushNotificationConfig.toJSON(
      await client.createTaskPushNotificationConfig(
        TaskPushNotificationConfig.fromJSON({ taskId: sent.id, id: 'hook', url: receiver.url, token }),
      ),
    ) as Json;
    expect(config).toMatchObject({ taskId: sent.id, id: 'hook', url: receiver.url });
    const final = await receiver.waitFor(
      'a push about the finished task',
      (r) => r.raw.includes(sent.id) && r.raw.includes('TASK_STATE_COMPLETED'),
    );
    expect(final.headers['x-a2a-notification-token']).toBe(token);
    expect(final.json.statusUpdate).toMatchObject({ taskId: sent.id, status: { state: 'TASK_STATE_COMPLETED' } });
    const mine = receiver.received.filter((r) => r.raw.includes(sent.id));
    for (const r of mine) {
      // Each body is one StreamResponse the SDK itself can read.
      const parsed = StreamResponse.toJSON(StreamResponse.fromJSON(r.json)) as Json;
      expect(Object.keys(parsed), r.raw).toHaveLength(1);
      expect(['task', 'message', 'statusUpdate', 'artifactUpdate']).toContain(Object.keys(parsed)[0]);
    }
    expect(mine.some((r) => r.json.artifactUpdate?.artifact?.parts?.[0]?.text === 'PUSHED WORDS')).toBe(true);
  });

  it('push set inline with SendMessage (configuration.taskPushNotificationConfig)', async () => {
    const token = `inline-${randomUUID()}`;
    const sent = await sendJson(
      request('slow 1 inline push', { returnImmediately: true, push: { url: receiver.url, token } }),
    );
    const final = await receiver.waitFor(
      'an inline push about the finished task',
      (r) => r.raw.includes(sent.id) && r.raw.includes('TASK_STATE_COMPLETED'),
    );
    expect(final.headers['x-a2a-notification-token']).toBe(token);
    expect(final.json.statusUpdate?.taskId).toBe(sent.id);
  });
});
