// @a2a-js/sdk 0.3.14 as the client of a Muster hub; the agent answering is `muster attach`.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, MessageSendParams, Task, TaskStatusUpdateEvent } from 'sdk03';
import { DefaultAgentCardResolver, type Client } from 'sdk03/client';
import { attach, type Attached } from '../lib/attach.js';
import { a2aClient03, client03 } from '../lib/clients.js';
import { handle, register, startHub, until, type Agent, type Hub } from '../lib/hub.js';
import { startReceiver, type Receiver } from '../lib/receiver.js';

let hub: Hub;
let alice: Agent;
let bob: Agent;
let bobAgent: Attached;
let client: Client;
let receiver: Receiver;

const message = (text: string, extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});
const params = (text: string, blocking: boolean, extra: Partial<Message> = {}): MessageSendParams => ({
  message: message(text, extra),
  configuration: { blocking, acceptedOutputModes: ['text/plain'] },
});
const textOf = (m: Message | undefined) => (m?.parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')).join('');
const settled = (id: string, states: string[]) =>
  until(`task ${id} in ${states.join('|')}`, async () => {
    const t = await client.getTask({ id });
    return states.includes(t.status.state) ? t : undefined;
  });

beforeAll(async () => {
  hub = await startHub();
  alice = await register(hub, handle('alice'));
  bob = await register(hub, handle('bob'));
  bobAgent = await attach(hub.url, bob.handle, bob.token);
  client = await client03(bob.a2a, alice.token);
  receiver = await startReceiver();
});
afterAll(async () => {
  await bobAgent?.stop();
  await receiver?.close();
  await hub?.stop();
});

describe('@a2a-js/sdk 0.3.14 client → Muster agent (muster attach)', () => {
  it('discovers the card from the agent base URL (ClientFactory and A2AClient.fromCardUrl)', async () => {
    // The SDK's own resolver, anonymous: the public card at <base>.well-known/agent-card.json.
    const card = await new DefaultAgentCardResolver().resolve(bob.a2a);
    expect(card.name).toBe(bob.handle);
    expect(card.protocolVersion).toMatch(/^0\.3/);
    expect(new URL(card.url).pathname).toBe(`/agents/${bob.handle}/`);
    expect(card.capabilities.streaming).toBe(true);
    // The factory's client: getAgentCard() asks for the extended card when the card offers one.
    const seen = await client.getAgentCard();
    expect(seen.name).toBe(bob.handle);
    expect(new URL(seen.url).pathname).toBe(`/agents/${bob.handle}/`);
    const legacy = await a2aClient03(bob.a2a, alice.token);
    const sent = (await legacy.sendMessage(params('legacy client', true))) as { result?: Task; error?: unknown };
    expect(sent.error).toBeUndefined();
    expect(sent.result?.status.state).toBe('completed');
    expect(textOf(sent.result?.status.message)).toBe('echo: legacy client');
  });

  it('sends a message (not blocking) and reads the answer with tasks/get', async () => {
    const sent = (await client.sendMessage(params('hello bob', false))) as Task;
    expect(sent.kind).toBe('task');
    expect(sent.id).toBeTruthy();
    expect(sent.contextId).toBeTruthy();
    const done = await settled(sent.id, ['completed', 'failed']);
    expect(done.status.state).toBe('completed');
    expect(textOf(done.status.message)).toBe('echo: hello bob');
    expect(done.artifacts?.[0]?.parts[0]).toMatchObject({ kind: 'text', text: 'HELLO BOB' });
    expect(done.history?.some((m) => m.role === 'user' && textOf(m) === 'hello bob')).toBe(true);
  });

  it('blocking send answers with the finished task and its artifact', async () => {
    const done = (await client.sendMessage(params('block please', true))) as Task;
    expect(done.kind).toBe('task');
    expect(done.status.state).toBe('completed');
    expect(textOf(done.status.message)).toBe('echo: block please');
    expect(done.artifacts?.[0]).toMatchObject({
      artifactId: 'answer',
      parts: [{ kind: 'text', text: 'BLOCK PLEASE' }],
    });
  });

  it('streams a message/stream: the task first, then its updates, ending final', async () => {
    const events = [];
    for await (const e of client.sendMessageStream(params('stream it', false))) events.push(e);
    expect(events[0]!.kind).toBe('task');
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last.kind).toBe('status-update');
    expect(last.final).toBe(true);
    expect(last.status.state).toBe('completed');
    expect(textOf(last.status.message)).toBe('echo: stream it');
    const artifact = events.find((e) => e.kind === 'artifact-update');
    expect(artifact).toMatchObject({
      artifact: { artifactId: 'answer', parts: [{ kind: 'text', text: 'STREAM IT' }] },
    });
  });

  it('resubscribes (tasks/resubscribe) to a task still being worked on', async () => {
    const sent = (await client.sendMessage(params('slow 2 later words', false))) as Task;
    const events = [];
    for await (const e of client.resubscribeTask({ id: sent.id })) events.push(e);
    expect(events[0]!.kind).toBe('task');
    expect((events[0] as Task).id).toBe(sent.id);
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, taskId: sent.id, status: { state: 'completed' } });
    expect(textOf(last.status.message)).toBe('slowly done: later words');
  });

  it('cancels a running task (tasks/cancel)', async () => {
    const sent = (await client.sendMessage(params('slow 30 never answered', false))) as Task;
    await new Promise((r) => setTimeout(r, 500)); // attach has started the command by now
    const canceled = await client.cancelTask({ id: sent.id });
    expect(canceled.kind).toBe('task');
    expect(canceled.status.state).toBe('canceled');
    expect((await client.getTask({ id: sent.id })).status.state).toBe('canceled');
    // The cancel reached the agent: attach stopped the command it was running for the task.
    const report = await until('attach to report the stopped run', async () =>
      bobAgent.reports().find((r) => r['taskId'] === sent.id),
    );
    expect(report, JSON.stringify(report)).toHaveProperty('stopped');
    await expect(client.cancelTask({ id: randomUUID() })).rejects.toThrow();
  });

  it('input-required round trip: the agent asks, the sender answers on the same task', async () => {
    const asked = (await client.sendMessage(params('ask me something', true))) as Task;
    expect(asked.status.state).toBe('input-required');
    expect(textOf(asked.status.message)).toBe('Which chapter?');
    const answered = (await client.sendMessage(
      params('Chapter 2', true, { taskId: asked.id, contextId: asked.contextId }),
    )) as Task;
    expect(answered.id).toBe(asked.id);
    expect(answered.status.state).toBe('completed');
    expect(textOf(answered.status.message)).toBe('thanks, noted: Chapter 2');
    expect(answered.artifacts?.[0]?.parts[0]).toMatchObject({ kind: 'text', text: 'ANSWER FOR CHAPTER 2' });
  });

  it('input-required on a stream: the 0.3 stream ends final at input-required, and a follow-up stream ends completed', async () => {
    const first = [];
    for await (const e of client.sendMessageStream(params('ask on a stream', false))) first.push(e);
    const stop = first.at(-1) as TaskStatusUpdateEvent;
    expect(stop).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    const second = [];
    for await (const e of client.sendMessageStream(
      params('Chapter 7', false, { taskId: stop.taskId, contextId: stop.contextId }),
    ))
      second.push(e);
    expect(second.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      taskId: stop.taskId,
      status: { state: 'completed' },
    });
  });

  it('push: tasks/pushNotificationConfig/set, and the receiver gets the task in the 0.3 shape', async () => {
    const sent = (await client.sendMessage(params('slow 2 pushed words', false))) as Task;
    const token = `push-${randomUUID()}`;
    const set = await client.setTaskPushNotificationConfig({
      taskId: sent.id,
      pushNotificationConfig: { id: 'hook', url: receiver.url, token },
    });
    expect(set).toMatchObject({ taskId: sent.id, pushNotificationConfig: { id: 'hook', url: receiver.url } });
    const got = await client.getTaskPushNotificationConfig({ id: sent.id, pushNotificationConfigId: 'hook' });
    expect(got.pushNotificationConfig.url).toBe(receiver.url);
    // Wait until the hub has told the receiver the task ended, whatever the shape.
    const last = await receiver.waitFor(
      'a push about the finished task',
      (r) => r.raw.includes(sent.id) && /completed/i.test(r.raw),
    );
    expect(last.headers['x-a2a-notification-token']).toBe(token);
    expect(String(last.headers['content-type'])).toMatch(/json/);
    // A 0.3 client expects 0.3 objects: the Task (as @a2a-js/sdk 0.3's own push sender posts it),
    // or at least 0.3 events, with `kind` and 0.3 state names.
    const mine = receiver.received.filter((r) => r.raw.includes(sent.id));
    for (const r of mine) {
      expect(['task', 'status-update', 'artifact-update'], `push body in the 0.3 shape: ${r.raw}`).toContain(
        r.json?.kind,
      );
    }
    const final = mine.find((r) => r.json?.status?.state === 'completed');
    expect(final, `a 0.3 push with status.state "completed" among: ${mine.map((r) => r.raw).join('\n')}`).toBeDefined();
  });
});
