import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDetached } from '../src/delivery/signing.js';
import { startA2AEndpoint } from './helpers/a2a-endpoint.js';
import {
  ADMIN_TOKEN,
  awayFromWindowEdge,
  register,
  rest,
  rpc,
  startTestHub,
  type Registered,
  type TestHub,
} from './helpers/hub.js';

let hub: TestHub;
let alice: Registered;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_DELIVERY_RETRIES: '1,1,2' });
  alice = await register(hub, 'alice');
});
afterAll(() => hub.destroy());

// returnImmediately: a send to an agent waits for its answer otherwise (test/blocking-send.test.ts).
const send = (handle: string, messageId: string, text = 'please') =>
  rpc(
    `${hub.url}agents/${handle}/`,
    'SendMessage',
    { message: { messageId, role: 'ROLE_USER', parts: [{ text }] }, configuration: { returnImmediately: true } },
    { token: alice.token },
  );

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function verifiedAgent(handle: string, endpoint: Awaited<ReturnType<typeof startA2AEndpoint>>) {
  const agent = await register(hub, handle, { endpoint: endpoint.base });
  const challenge = await rest(hub, 'POST', `api/agents/${handle}/endpoint/challenge`, { token: agent.token });
  expect(challenge.status).toBe(200);
  expect(challenge.body.url).toBe(`${endpoint.base}.well-known/muster-challenge`);
  endpoint.serveChallenge(challenge.body.challenge);
  const verified = await rest(hub, 'POST', `api/agents/${handle}/endpoint/verify`, { token: agent.token });
  expect(verified.body).toMatchObject({ handle, available: true, enabled: false });
  return agent;
}

describe("forwarding to an agent's own A2A endpoint", () => {
  it('proves control, then forwards each new task as a signed SendMessage with one idempotency key, recording the answer on the task', async () => {
    const endpoint = await startA2AEndpoint({ failFirst: 1 });
    const agent = await register(hub, 'fwd-early', { endpoint: endpoint.base });
    const tooEarly = await rest(hub, 'PUT', 'api/agents/fwd-early/forwarding', {
      token: agent.token,
      body: { enabled: true },
    });
    expect(tooEarly.status).toBe(409);

    const own = await verifiedAgent('fwd', endpoint);
    const on = await rest(hub, 'PUT', 'api/agents/fwd/forwarding', { token: own.token, body: { enabled: true } });
    expect(on.body).toMatchObject({ enabled: true, available: true });

    const task = (await send('fwd', 'fwd-1', 'hello endpoint')).body.result.task;
    const got = await until(
      async () => endpoint.received,
      (r) => r.length >= 1,
    );
    expect(got).toHaveLength(1);
    const [call] = got;
    const key = call!.headers['idempotency-key'];
    expect(call!.body.id).toBe(key);
    expect(call!.body.method).toBe('SendMessage');
    expect(call!.body.params.message.messageId).toBe(key);
    expect(call!.body.params.message.parts).toEqual([{ text: 'hello endpoint' }]);
    expect(call!.body.params.message.metadata.muster).toMatchObject({ taskId: task.id, from: 'alice', to: 'fwd' });
    const jwks = (await rest(hub, 'GET', '.well-known/jwks.json')).body;
    await expect(
      verifyDetached(String(call!.headers['muster-signature']), JSON.stringify(call!.body), jwks),
    ).resolves.toBeTruthy();

    const recorded = await until(
      async () => (await rest(hub, 'GET', `api/tasks/${task.id}`, { token: alice.token })).body,
      (t) => t.metadata?.muster?.forwarding?.state === 'delivered',
    );
    expect(recorded.metadata.muster.forwarding).toMatchObject({ state: 'delivered', attempts: 2, httpStatus: 200 });
    expect(recorded.metadata.muster.forwarding.remoteTaskId).toEqual(expect.any(String));
    expect(recorded.status.state).toBe('TASK_STATE_SUBMITTED'); // the hub's task is unchanged otherwise
    await endpoint.close();
  });

  it('refuses a verification the endpoint does not pass', async () => {
    const endpoint = await startA2AEndpoint();
    const agent = await register(hub, 'fwd-wrong', { endpoint: endpoint.base });
    await rest(hub, 'POST', 'api/agents/fwd-wrong/endpoint/challenge', { token: agent.token });
    endpoint.serveChallenge('not-the-challenge');
    const res = await rest(hub, 'POST', 'api/agents/fwd-wrong/endpoint/verify', { token: agent.token });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/challenge/);
    const other = await register(hub, 'fwd-other');
    expect((await rest(hub, 'POST', 'api/agents/fwd-wrong/endpoint/challenge', { token: other.token })).status).toBe(
      403,
    );
    const noEndpoint = await rest(hub, 'POST', 'api/agents/fwd-other/endpoint/challenge', { token: other.token });
    expect(noEndpoint.status).toBe(409);
    await endpoint.close();
  });

  it('switching forwarding off cancels pending forwards; new tasks are no longer forwarded', async () => {
    const endpoint = await startA2AEndpoint({ failFirst: 1000 });
    const own = await verifiedAgent('fwd-off', endpoint);
    await rest(hub, 'PUT', 'api/agents/fwd-off/forwarding', { token: own.token, body: { enabled: true } });
    const task = (await send('fwd-off', 'off-1')).body.result.task;
    await until(
      async () => (await rest(hub, 'GET', `api/tasks/${task.id}/deliveries`, { token: own.token })).body.deliveries,
      (d) => d[0]?.attempts >= 1,
    );
    const off = await rest(hub, 'PUT', 'api/agents/fwd-off/forwarding', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { enabled: false },
    });
    expect(off.body.enabled).toBe(false);
    const outbox = await rest(hub, 'GET', `api/tasks/${task.id}/deliveries`, { token: own.token });
    expect(outbox.body.deliveries.map((d: any) => [d.channel, d.state])).toEqual([['forward', 'canceled']]);
    // the sender sees none of the target's forwarding deliveries
    expect((await rest(hub, 'GET', `api/tasks/${task.id}/deliveries`, { token: alice.token })).body.deliveries).toEqual(
      [],
    );
    const later = (await send('fwd-off', 'off-2')).body.result.task;
    expect((await rest(hub, 'GET', `api/tasks/${later.id}/deliveries`, { token: own.token })).body.deliveries).toEqual(
      [],
    );
    await endpoint.close();
  });

  it('allows at most 30 forwarding changes an hour', async () => {
    const endpoint = await startA2AEndpoint();
    const own = await verifiedAgent('fwd-flip', endpoint);
    await awayFromWindowEdge(3_600_000);
    for (let i = 0; i < 30; i++) {
      const res = await rest(hub, 'PUT', 'api/agents/fwd-flip/forwarding', {
        token: own.token,
        body: { enabled: i % 2 === 0 },
      });
      expect(res.status).toBe(200);
    }
    const refused = await rest(hub, 'PUT', 'api/agents/fwd-flip/forwarding', {
      token: own.token,
      body: { enabled: true },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect((await rest(hub, 'GET', 'api/agents/fwd-flip/forwarding', { token: own.token })).body.enabled).toBe(false);
    const strict = await rest(hub, 'PUT', 'api/agents/fwd-flip/forwarding', {
      token: own.token,
      body: { enabled: 'yes' },
    });
    expect(strict.status).toBe(400);
    await endpoint.close();
  });
});
