/**
 * What the target of a direct task can answer through respond, as a full A2A agent can: artifacts
 * streamed in chunks (seen by an SDK subscriber with their flags, accumulated in GetTask), a plain
 * Message reply to a new task (SendMessage's result is that Message), and a rejection after work
 * has begun. On SQLite, or PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamResponse } from '@a2a-js/sdk';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;

beforeAll(async () => {
  hub = await startTestHub();
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

const respond = (id: string, body: object) => rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body });
const getTask = async (id: string) => (await rest(hub, 'GET', `api/tasks/${id}`, { token: alice.token })).body;

describe('artifacts in chunks', () => {
  it('an SDK subscriber sees each chunk with its artifactId, append and lastChunk; GetTask shows the whole artifact', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(sendRequest('write me a poem', { returnImmediately: true })));
    const seen: any[] = [];
    for await (const event of asAlice.resubscribeTask({ tenant: '', id: task.id })) {
      const json = StreamResponse.toJSON(event) as any;
      seen.push(json);
      if (json.task) {
        expect(
          (
            await respond(task.id, {
              state: 'TASK_STATE_WORKING',
              chunks: [{ artifactId: 'poem', name: 'Poem', parts: [{ text: 'Roses' }] }],
            })
          ).status,
        ).toBe(200);
        expect(
          (await respond(task.id, { chunks: [{ artifactId: 'poem', append: true, parts: [{ text: 'are' }] }] })).status,
        ).toBe(200);
        const last = await respond(task.id, {
          state: 'TASK_STATE_COMPLETED',
          chunks: [{ artifactId: 'poem', append: true, lastChunk: true, parts: [{ text: 'red' }] }],
        });
        expect(last.body.artifacts).toEqual([
          { artifactId: 'poem', name: 'Poem', parts: [{ text: 'Roses' }, { text: 'are' }, { text: 'red' }] },
        ]);
      }
    }
    const chunks = seen.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate);
    expect(
      chunks.map((c) => [
        c.artifact.artifactId,
        c.artifact.parts.map((p: any) => p.text),
        c.append ?? false,
        c.lastChunk ?? false,
      ]),
    ).toEqual([
      ['poem', ['Roses'], false, false],
      ['poem', ['are'], true, false],
      ['poem', ['red'], true, true],
    ]);
    expect(seen.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const read = await getTask(task.id);
    expect(read.artifacts).toHaveLength(1);
    expect(read.artifacts[0].parts.map((p: any) => p.text)).toEqual(['Roses', 'are', 'red']);
  });

  it('refuses an appended chunk of an artifact the task does not hold, changing nothing', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(sendRequest('append to nothing', { returnImmediately: true })));
    const refused = await respond(task.id, {
      state: 'TASK_STATE_WORKING',
      chunks: [{ artifactId: 'ghost', append: true, parts: [{ text: 'x' }] }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('chunks[0].append');
    const read = await getTask(task.id);
    expect([read.status.state, read.artifacts ?? []]).toEqual(['TASK_STATE_SUBMITTED', []]);
  });
});

describe('a Message reply', () => {
  it('answers a blocking SendMessage with the Message (SDK and raw JSON-RPC, 1.0 and 0.3); the task records it, COMPLETED', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(sendRequest('what time is it?', { returnImmediately: true })));
    const answered = await respond(task.id, { reply: { messageId: 'reply-1', parts: [{ text: 'noon' }] } });
    expect(answered.status).toBe(200);
    expect(answered.body.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.body.metadata.muster.reply).toBe('reply-1');

    // A retried send (same messageId) is answered from the task as it stands now: the Message.
    const again = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: task.history[0].messageId, role: 'ROLE_USER', parts: [{ text: 'what time is it?' }] } },
      { token: alice.token },
    );
    expect(again.body.result.task).toBeUndefined();
    expect(again.body.result.message).toMatchObject({
      messageId: 'reply-1',
      role: 'ROLE_AGENT',
      taskId: task.id,
      parts: [{ text: 'noon' }],
    });
    const legacy = await rpc(
      bobBase(),
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: task.history[0].messageId,
          role: 'user',
          parts: [{ kind: 'text', text: 'what time is it?' }],
        },
      },
      { token: alice.token },
    );
    expect(legacy.body.result).toMatchObject({ kind: 'message', messageId: 'reply-1', role: 'agent' });

    const viaSdk = wire(
      await asAlice.sendMessage(sendRequest('what time is it?', { messageId: task.history[0].messageId })),
    );
    expect([viaSdk.messageId, viaSdk.parts[0].content]).toEqual(['reply-1', { $case: 'text', value: 'noon' }]); // the SDK's own Message shape
    expect(viaSdk.status).toBeUndefined();

    const read = await getTask(task.id);
    expect(read.history.map((m: any) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
    expect(read.status.message.messageId).toBe('reply-1');
  });

  it('is refused once the task was taken up, and beside a state', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(sendRequest('long job', { returnImmediately: true })));
    const both = await respond(task.id, { state: 'TASK_STATE_COMPLETED', reply: { parts: [{ text: 'done' }] } });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('reply');
    await respond(task.id, { state: 'TASK_STATE_WORKING' });
    const late = await respond(task.id, { reply: { parts: [{ text: 'done' }] } });
    expect([late.status, late.body.error.code]).toEqual([409, 'CONFLICT']);
    expect((await getTask(task.id)).status.state).toBe('TASK_STATE_WORKING');
  });
});

describe('rejecting', () => {
  it('a task in WORKING or INPUT_REQUIRED may be rejected; a final one may not', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const working = wire(await asAlice.sendMessage(sendRequest('reject me later', { returnImmediately: true })));
    await respond(working.id, { state: 'TASK_STATE_WORKING' });
    const rejected = await respond(working.id, {
      state: 'TASK_STATE_REJECTED',
      message: { parts: [{ text: 'out of scope' }] },
    });
    expect([rejected.status, rejected.body.status.state]).toEqual([200, 'TASK_STATE_REJECTED']);
    expect(wire(await asAlice.getTask({ tenant: '', id: working.id, historyLength: undefined })).status.state).toBe(
      'TASK_STATE_REJECTED',
    );

    const asking = wire(await asAlice.sendMessage(sendRequest('ask me first', { returnImmediately: true })));
    await respond(asking.id, { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'which?' }] } });
    expect((await respond(asking.id, { state: 'TASK_STATE_REJECTED' })).body.status.state).toBe('TASK_STATE_REJECTED');

    const again = await respond(working.id, { state: 'TASK_STATE_REJECTED' });
    expect([again.status, again.body.error.code]).toEqual([409, 'CONFLICT']);
  });
});

it('a respond without state, artifacts, chunks or reply is refused, naming state', async () => {
  const task = (
    await rpc(
      bobBase(),
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token },
    )
  ).body.result.task;
  const res = await respond(task.id, { message: { parts: [{ text: 'hm' }] } });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body.error)).toContain('state');
});
