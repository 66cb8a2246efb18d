/**
 * A push URL whose host does not resolve right now is taken at configuration time (its DNS record
 * may not exist yet); private targets are still refused then, and every address is checked when
 * the hub connects, so a delivery to it fails rather than reaching anything. The hub here keeps
 * the default rule: no private targets. On SQLite, or PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_DELIVERY_RETRIES: '1' });
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

const newTask = async (push?: object) =>
  (
    await rpc(
      bobBase(),
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'push me' }] },
        configuration: { returnImmediately: true, ...(push ? { taskPushNotificationConfig: push } : {}) },
      },
      { token: alice.token },
    )
  ).body;
const setPush = (taskId: string, url: string) =>
  rpc(bobBase(), 'CreateTaskPushNotificationConfig', { taskId, id: randomUUID(), url }, { token: alice.token });

describe('push URLs and DNS', () => {
  it('takes a host that does not resolve now, in CreateTaskPushNotificationConfig and in SendMessage', async () => {
    const task = (await newTask()).result.task;
    const created = await setPush(task.id, 'https://not-registered-yet.invalid/hook');
    expect(created.body.result).toMatchObject({ taskId: task.id, url: 'https://not-registered-yet.invalid/hook' });
    const sent = await newTask({ url: 'https://also-not-yet.invalid/hook' });
    expect(sent.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  });

  it('still refuses literal private addresses and names that resolve to private ones', async () => {
    const task = (await newTask()).result.task;
    for (const url of ['https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'https://localhost/hook']) {
      const refused = await setPush(task.id, url);
      expect(refused.body.error?.code, url).toBe(-32602);
    }
  });

  it.each([
    ['https://localhost./hook', 'https://localhost/hook'],
    ['https://127.0.0.1./hook', 'https://127.0.0.1/hook'],
    ['https://foo.localhost./hook', 'https://foo.localhost/hook'],
  ])(
    'refuses %s exactly as %s: in CreateTaskPushNotificationConfig, 0.3 set and SendMessage, storing nothing',
    async (dotted, dotless) => {
      const task = (await newTask()).result.task;
      const refusals = async (url: string) => {
        const created = await setPush(task.id, url);
        const set03 = await rpc(
          bobBase(),
          'tasks/pushNotificationConfig/set',
          { taskId: task.id, pushNotificationConfig: { url } },
          { token: alice.token },
        );
        const inline = await newTask({ url });
        return [created.body.error, set03.body.error, inline.error].map((e) => [
          e?.code,
          e?.data?.[1]?.fieldViolations,
        ]);
      };
      const refused = await refusals(dotted);
      expect(refused.map(([code]) => code)).toEqual([-32602, -32602, -32602]);
      expect(refused[0]![1]).toEqual([{ field: 'params.url', description: 'does not resolve to a public address' }]);
      expect(refused).toEqual(await refusals(dotless));
      expect(
        (await rpc(bobBase(), 'ListTaskPushNotificationConfigs', { taskId: task.id }, { token: alice.token })).body
          .result.configs,
      ).toEqual([]);
    },
  );

  it('refuses an agent endpoint at localhost. as it refuses one at localhost, when verifying it', async () => {
    const verify = async (endpoint: string) => {
      const agent = await register(hub, `ep-${randomUUID().slice(0, 8)}`, { endpoint });
      expect(
        (await rest(hub, 'POST', `api/agents/${agent.handle}/endpoint/challenge`, { token: agent.token })).status,
      ).toBe(200);
      return (await rest(hub, 'POST', `api/agents/${agent.handle}/endpoint/verify`, { token: agent.token })).body.error;
    };
    const [dotted, dotless] = [await verify('https://localhost./'), await verify('https://localhost/')];
    expect(dotted).toMatchObject({ code: dotless.code, status: 409, hint: dotless.hint });
    expect(dotted.message).toMatch(/localhost\. names this machine \(loopback\)/);
  });

  it('checks the addresses again when it connects: a delivery to a host that does not resolve fails, it reaches nothing', async () => {
    const task = (await newTask({ url: 'https://never-resolves.invalid/hook' })).result.task;
    await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_COMPLETED' },
    });
    let deliveries: any[] = [];
    for (let i = 0; i < 100; i++) {
      deliveries = (await rest(hub, 'GET', `api/tasks/${task.id}/deliveries`, { token: alice.token })).body.deliveries;
      if (deliveries.length > 0 && deliveries.every((d) => d.attempts > 0)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries.length).toBeGreaterThan(0);
    for (const d of deliveries) {
      expect(d.attempts).toBeGreaterThan(0);
      expect(d.state).not.toBe('delivered');
      expect(d.lastStatus).toBeUndefined(); // no HTTP answer: nothing was reached
    }
  });
});
