import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDetached } from '../src/delivery/signing.js';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { startWebhook } from './helpers/webhook.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_DELIVERY_RETRIES: '1,1,2' });
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

const newTask = async (messageId: string) =>
  (
    await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    )
  ).body.result.task.id as string;
const respond = (id: string, body: object) => rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body });
const jwks = async () => (await rest(hub, 'GET', '.well-known/jwks.json')).body;

describe('push notifications', () => {
  it('delivers each event once per attempt, in order, signed, with auth headers and one idempotency key per delivery', async () => {
    const hook = await startWebhook((n) => (n <= 2 ? 503 : 200)); // the first two attempts fail
    const id = await newTask('push-1');
    const created = await rpc(
      bobBase(),
      'CreateTaskPushNotificationConfig',
      {
        taskId: id,
        id: 'hook-1',
        url: hook.url,
        token: 'tok-123',
        authentication: { scheme: 'Bearer', credentials: 'secret-cred' },
      },
      { token: alice.token },
    );
    expect(created.body.result).toEqual({
      taskId: id,
      id: 'hook-1',
      url: hook.url,
      token: 'tok-123',
      authentication: { scheme: 'Bearer' },
    });
    await respond(id, { state: 'TASK_STATE_WORKING' });
    await respond(id, { state: 'TASK_STATE_COMPLETED', artifacts: [{ artifactId: 'r', parts: [{ text: 'done' }] }] });

    const got = await hook.waitFor(5); // 2 failed attempts + 3 deliveries
    const bodies = got.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => Object.keys(b)[0])).toEqual([
      'statusUpdate',
      'statusUpdate',
      'statusUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(bodies[2].statusUpdate.status.state).toBe('TASK_STATE_WORKING');
    expect(bodies[4].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const keys = got.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[1]).toBe(keys[2]);
    expect(new Set(keys).size).toBe(3);
    expect(got[3]!.at - got[0]!.at).toBeGreaterThan(1500); // two retries waited about a second each
    const keySet = await jwks();
    for (const r of got) {
      expect(r.headers['authorization']).toBe('Bearer secret-cred');
      expect(r.headers['x-a2a-notification-token']).toBe('tok-123');
      expect(r.headers['content-type']).toBe('application/a2a+json');
      const signature = String(r.headers['muster-signature']);
      expect(signature).toMatch(/^[\w-]+\.\.[\w-]+$/);
      await expect(verifyDetached(signature, r.body, keySet)).resolves.toBeTruthy();
      await expect(verifyDetached(signature, `${r.body} `, keySet)).rejects.toThrow();
    }
    const outbox = await rest(hub, 'GET', `api/tasks/${id}/deliveries`, { token: alice.token });
    expect(outbox.body.deliveries.map((d: any) => [d.seq, d.state, d.attempts, d.lastStatus])).toEqual([
      [2, 'delivered', 3, 200],
      [3, 'delivered', 1, 200],
      [4, 'delivered', 1, 200],
    ]);
    expect(JSON.stringify(outbox.body)).not.toContain('secret-cred');
    const rows = JSON.stringify(await hub.db.rows('SELECT headers, body FROM deliveries'));
    expect(rows).not.toContain('secret-cred'); // credentials live with the config only, read when sending
    await hook.close();
  });

  it('keeps a delivery across a restart and retries it with the same idempotency key', async () => {
    let failing = true;
    const hook = await startWebhook(() => (failing ? 500 : 200));
    const id = await newTask('push-restart');
    await rpc(bobBase(), 'CreateTaskPushNotificationConfig', { taskId: id, url: hook.url }, { token: alice.token });
    await respond(id, { state: 'TASK_STATE_WORKING' });
    await hook.waitFor(1);
    await hub.restart();
    failing = false;
    const got = await hook.waitFor(2);
    expect(got[1]!.headers['idempotency-key']).toBe(got[0]!.headers['idempotency-key']);
    expect(JSON.parse(got[1]!.body).statusUpdate.status.state).toBe('TASK_STATE_WORKING');
    await hook.close();
  });

  it('gets, lists and deletes configs by the client-chosen id; other callers see none; deleting cancels pending deliveries', async () => {
    const id = await newTask('push-crud');
    await rpc(
      bobBase(),
      'CreateTaskPushNotificationConfig',
      { taskId: id, id: 'mine', url: 'http://127.0.0.1:9/never' },
      { token: alice.token },
    );
    const got = await rpc(
      bobBase(),
      'GetTaskPushNotificationConfig',
      { taskId: id, id: 'mine' },
      { token: alice.token },
    );
    expect(got.body.result).toMatchObject({ id: 'mine', taskId: id });
    const listed = await rpc(bobBase(), 'ListTaskPushNotificationConfigs', { taskId: id }, { token: alice.token });
    expect(listed.body.result.configs.map((c: any) => c.id)).toEqual(['mine']);
    const byBob = await rpc(bobBase(), 'ListTaskPushNotificationConfigs', { taskId: id }, { token: bob.token });
    expect(byBob.body.result.configs).toEqual([]);
    const carol = await register(hub, 'carol-push');
    const byCarol = await rpc(hub.url, 'ListTaskPushNotificationConfigs', { taskId: id }, { token: carol.token });
    expect(byCarol.body.error.code).toBe(-32001);
    await respond(id, { state: 'TASK_STATE_WORKING' });
    const deleted = await rpc(
      bobBase(),
      'DeleteTaskPushNotificationConfig',
      { taskId: id, id: 'mine' },
      { token: alice.token },
    );
    expect(deleted.body.result).toEqual({});
    const again = await rpc(
      bobBase(),
      'DeleteTaskPushNotificationConfig',
      { taskId: id, id: 'mine' },
      { token: alice.token },
    );
    expect(again.body.result).toEqual({});
    const gone = await rpc(
      bobBase(),
      'GetTaskPushNotificationConfig',
      { taskId: id, id: 'mine' },
      { token: alice.token },
    );
    expect(gone.body.error.code).toBe(-32012);
    const outbox = await rest(hub, 'GET', `api/tasks/${id}/deliveries`, { token: alice.token });
    expect(
      outbox.body.deliveries.every((d: any) => d.state === 'canceled' || d.state === 'failed' || d.attempts > 0),
    ).toBe(true);
    expect(outbox.body.deliveries.some((d: any) => d.state === 'pending')).toBe(false);
  });

  it('a retried SendMessage sets its inline push config once', async () => {
    const hook = await startWebhook();
    const params = {
      message: { messageId: 'push-retry', role: 'ROLE_USER', parts: [{ text: 'x' }] },
      configuration: { taskPushNotificationConfig: { url: hook.url } },
    };
    const first = await rpc(bobBase(), 'SendMessage', params, { token: alice.token });
    const again = await rpc(bobBase(), 'SendMessage', params, { token: alice.token });
    expect(again.body.result.task.id).toBe(first.body.result.task.id);
    const list = await rpc(
      bobBase(),
      'ListTaskPushNotificationConfigs',
      { taskId: first.body.result.task.id },
      { token: alice.token },
    );
    expect(list.body.result.configs.map((c: any) => c.id)).toEqual(['message-push-retry']);
    const anonymousDelete = await rpc(bobBase(), 'tasks/pushNotificationConfig/delete', {
      id: first.body.result.task.id,
      pushNotificationConfigId: 'message-push-retry',
    });
    expect(anonymousDelete.status).toBe(401);
    const noConfigId = await rpc(
      bobBase(),
      'tasks/pushNotificationConfig/delete',
      { id: first.body.result.task.id },
      { token: alice.token },
    );
    expect(noConfigId.body.error.code).toBe(-32602);
    await hook.close();
  });

  it('takes a push config in SendMessage, and speaks the 0.3 push methods', async () => {
    const hook = await startWebhook();
    const sent = await rpc(
      bobBase(),
      'SendMessage',
      {
        message: { messageId: 'push-inline', role: 'ROLE_USER', parts: [{ text: 'x' }] },
        configuration: { taskPushNotificationConfig: { url: hook.url, id: 'inline' } },
      },
      { token: alice.token },
    );
    const id = sent.body.result.task.id;
    await respond(id, { state: 'TASK_STATE_WORKING' });
    const [first] = await hook.waitFor(1);
    expect(JSON.parse(first!.body).statusUpdate.taskId).toBe(id);
    const legacy = await rpc(
      bobBase(),
      'tasks/pushNotificationConfig/get',
      { id, pushNotificationConfigId: 'inline' },
      { token: alice.token },
    );
    expect(legacy.body.result).toEqual({ taskId: id, pushNotificationConfig: { id: 'inline', url: hook.url } });
    const set = await rpc(
      bobBase(),
      'tasks/pushNotificationConfig/set',
      {
        taskId: id,
        pushNotificationConfig: {
          id: 'second',
          url: hook.url,
          authentication: { schemes: ['Bearer'], credentials: 'c' },
        },
      },
      { token: alice.token },
    );
    expect(set.body.result.pushNotificationConfig).toMatchObject({
      id: 'second',
      authentication: { schemes: ['Bearer'] },
    });
    const list = await rpc(bobBase(), 'tasks/pushNotificationConfig/list', { id }, { token: alice.token });
    expect(list.body.result.map((c: any) => c.pushNotificationConfig.id)).toEqual(['inline', 'second']);
    await hook.close();
  });
});

describe('push URLs the hub may not reach', () => {
  let strict: TestHub;
  let a: Registered;
  beforeAll(async () => {
    strict = await startTestHub();
    [a] = await Promise.all([register(strict, 'alice'), register(strict, 'bob')]);
  });
  afterAll(() => strict.destroy());

  it.each([
    'http://example.com/hook',
    'https://127.0.0.1/hook',
    'https://localhost/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest',
    'https://[::1]/hook',
  ])('refuses %s with -32602 naming url, and stores nothing', async (url) => {
    const base = `${strict.url}agents/bob/`;
    const id = (
      await rpc(
        base,
        'SendMessage',
        { message: { messageId: `ssrf-${url}`, role: 'ROLE_USER', parts: [{ text: 'x' }] } },
        { token: a.token },
      )
    ).body.result.task.id;
    const res = await rpc(base, 'CreateTaskPushNotificationConfig', { taskId: id, url }, { token: a.token });
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.data[1].fieldViolations[0].field).toBe('params.url');
    const list = await rpc(base, 'ListTaskPushNotificationConfigs', { taskId: id }, { token: a.token });
    expect(list.body.result.configs).toEqual([]);
    const inline = await rpc(
      base,
      'SendMessage',
      {
        message: { messageId: `ssrf-inline-${url}`, role: 'ROLE_USER', parts: [{ text: 'x' }] },
        configuration: { taskPushNotificationConfig: { url } },
      },
      { token: a.token },
    );
    expect(inline.body.error.message).toContain('configuration.taskPushNotificationConfig.url');
  });

  it('publishes its public keys as a JWKS, without private parts', async () => {
    const res = await rest(strict, 'GET', '.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(JSON.stringify(res.body)).not.toContain('"d"');
  });
});
