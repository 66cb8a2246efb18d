/**
 * A push config set through the 0.3 methods (`tasks/pushNotificationConfig/set`, or 0.3
 * `message/send`'s `configuration.pushNotificationConfig`) is sent what 0.3 senders send: the
 * Task itself in 0.3 shape, as application/json. A 1.0 config keeps getting StreamResponse
 * events. A real hub on 127.0.0.1 and a real receiver, on SQLite or PostgreSQL (MUSTER_TEST_PG).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { startWebhook, type Received } from './helpers/webhook.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1' });
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

const STATES_03 = [
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
];

/** What a 0.3 receiver (the 0.3 SDK's types) takes as a Task: fails on any 1.0 spelling. */
function expectTask03(received: Received): any {
  expect(received.headers['content-type']).toBe('application/json');
  const task = JSON.parse(received.body);
  expect(task.kind).toBe('task');
  expect(typeof task.id).toBe('string');
  expect(typeof task.contextId).toBe('string');
  expect(STATES_03).toContain(task.status.state);
  const parts = [
    ...(task.history ?? []).flatMap((m: any) => m.parts),
    ...(task.artifacts ?? []).flatMap((a: any) => a.parts),
  ];
  for (const message of task.history ?? []) {
    expect(message.kind).toBe('message');
    expect(['user', 'agent']).toContain(message.role);
  }
  for (const part of parts) {
    expect(['text', 'data', 'file']).toContain(part.kind);
    expect(part).toHaveProperty(part.kind);
  }
  return task;
}

const newTask = async () =>
  (
    await rpc(
      bobBase(),
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'draft the note' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token },
    )
  ).body.result.task.id as string;
const respond = async (id: string, body: object) =>
  expect((await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body })).status).toBe(200);
const get03 = async (id: string) => (await rpc(bobBase(), 'tasks/get', { id }, { token: alice.token })).body.result;

describe('push configs set through 0.3', () => {
  it('tasks/pushNotificationConfig/set: each event sends the task in 0.3 shape, with the token and the authorization', async () => {
    const hook = await startWebhook();
    const id = await newTask();
    const set = await rpc(
      bobBase(),
      'tasks/pushNotificationConfig/set',
      {
        taskId: id,
        pushNotificationConfig: {
          id: 'old',
          url: hook.url,
          token: 'tok-03',
          authentication: { schemes: ['Bearer'], credentials: 'cred-03' },
        },
      },
      { token: alice.token },
    );
    expect(set.body.result.pushNotificationConfig.id).toBe('old');
    await respond(id, { state: 'working' });
    await respond(id, {
      state: 'TASK_STATE_COMPLETED',
      message: 'here it is',
      artifacts: [{ artifactId: 'note', parts: [{ kind: 'data', data: { words: 3 } }] }],
    });

    const got = await hook.waitFor(3); // working; the artifact; completed
    const tasks = got.map(expectTask03);
    expect(tasks.map((t) => t.status.state)).toEqual(['working', 'completed', 'completed']);
    expect(tasks[0].artifacts).toBeUndefined();
    expect(tasks[1].artifacts).toEqual([{ artifactId: 'note', parts: [{ kind: 'data', data: { words: 3 } }] }]);
    expect(tasks[2]).toEqual(await get03(id)); // the last is the task as tasks/get shows it, the reply in its history
    expect(tasks[2].history.map((m: any) => [m.role, m.parts[0].text])).toEqual([
      ['user', 'draft the note'],
      ['agent', 'here it is'],
    ]);
    for (const r of got) {
      expect(r.headers['x-a2a-notification-token']).toBe('tok-03');
      expect(r.headers['authorization']).toBe('Bearer cred-03');
    }
    await hook.close();
  });

  it("0.3 message/send's configuration.pushNotificationConfig is a 0.3 config too; a 1.0 config beside it gets 1.0 events", async () => {
    const [hook03, hook10] = await Promise.all([startWebhook(), startWebhook()]);
    const sent = await rpc(
      bobBase(),
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'old client' }],
        },
        configuration: { pushNotificationConfig: { url: hook03.url } },
      },
      { token: alice.token },
    );
    const id = sent.body.result.id as string;
    expect(sent.body.result.kind).toBe('task');
    await rpc(
      bobBase(),
      'CreateTaskPushNotificationConfig',
      { taskId: id, id: 'new', url: hook10.url },
      { token: alice.token },
    );
    await respond(id, { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'which one?' }] } });

    const [legacy] = await hook03.waitFor(1);
    const task = expectTask03(legacy!);
    expect(task.status).toMatchObject({
      state: 'input-required',
      message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'which one?' }] },
    });
    const [current] = await hook10.waitFor(1);
    expect(current!.headers['content-type']).toBe('application/a2a+json');
    expect(JSON.parse(current!.body)).toMatchObject({
      statusUpdate: {
        taskId: id,
        status: {
          state: 'TASK_STATE_INPUT_REQUIRED',
          message: { role: 'ROLE_AGENT', parts: [{ text: 'which one?' }] },
        },
      },
    });
    await Promise.all([hook03.close(), hook10.close()]);
  });

  it('a 1.0 caller cannot ask for the 0.3 shape by a field, and setting a 0.3 config again through 1.0 makes it 1.0', async () => {
    const hook = await startWebhook();
    const id = await newTask();
    await rpc(
      bobBase(),
      'tasks/pushNotificationConfig/set',
      { taskId: id, pushNotificationConfig: { id: 'c', url: hook.url } },
      { token: alice.token },
    );
    await rpc(
      bobBase(),
      'CreateTaskPushNotificationConfig',
      { taskId: id, id: 'c', url: hook.url, protocol: '0.3' },
      { token: alice.token },
    );
    await respond(id, { state: 'TASK_STATE_WORKING' });
    const [first] = await hook.waitFor(1);
    expect(first!.headers['content-type']).toBe('application/a2a+json');
    expect(JSON.parse(first!.body).statusUpdate.status.state).toBe('TASK_STATE_WORKING');
    await hook.close();
  });
});
