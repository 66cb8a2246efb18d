import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awayFromWindowEdge, register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
let base: string;

beforeAll(async () => {
  hub = await startTestHub();
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
  base = `${hub.url}agents/bob/`;
});
afterAll(() => hub.destroy());

const send = (messageId: string, text = 'hello', extra: Record<string, unknown> = {}) => ({
  message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra },
});
const total = async () => (await rpc(base, 'ListTasks', {}, { token: alice.token })).body.result.totalSize as number;

describe('idempotent writes', () => {
  it('the same messageId from the same caller answers the same task and creates nothing', async () => {
    const first = await rpc(base, 'SendMessage', send('dup-1'), { token: alice.token });
    const count = await total();
    const again = await rpc(base, 'SendMessage', send('dup-1'), { token: alice.token });
    expect(again.body.result.task.id).toBe(first.body.result.task.id);
    expect(await total()).toBe(count);
    const [a, b] = await Promise.all([
      rpc(base, 'SendMessage', send('dup-race'), { token: alice.token }),
      rpc(base, 'SendMessage', send('dup-race'), { token: alice.token }),
    ]);
    expect(a.body.result.task.id).toBe(b.body.result.task.id);
    expect(await total()).toBe(count + 1);
  });

  it('the same messageId with a different message is refused, naming messageId', async () => {
    await rpc(base, 'SendMessage', send('dup-2', 'first'), { token: alice.token });
    const count = await total();
    const res = await rpc(base, 'SendMessage', send('dup-2', 'something else'), { token: alice.token });
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.data[1].fieldViolations[0].field).toBe('params.message.messageId');
    expect(await total()).toBe(count);
  });

  it('a follow-up retried with the same messageId joins the history once', async () => {
    const created = await rpc(base, 'SendMessage', send('fu-0'), { token: alice.token });
    const id = created.body.result.task.id;
    await rpc(base, 'SendMessage', send('fu-1', 'more', { taskId: id }), { token: alice.token });
    await rpc(base, 'SendMessage', send('fu-1', 'more', { taskId: id }), { token: alice.token });
    const task = await rpc(base, 'GetTask', { id }, { token: alice.token });
    expect(task.body.result.history.map((m: any) => m.messageId)).toEqual(['fu-0', 'fu-1']);
  });

  it('concurrent follow-ups to one task all land: a lost compare-and-set is retried, not refused', async () => {
    const created = await rpc(base, 'SendMessage', send('race-0'), { token: alice.token });
    const id = created.body.result.task.id;
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        rpc(base, 'SendMessage', send(`race-${i}`, `more ${i}`, { taskId: id }), { token: alice.token }),
      ),
    );
    expect(answers.map((a) => a.body.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    const task = await rpc(base, 'GetTask', { id }, { token: alice.token });
    expect(task.body.result.history.map((m: any) => m.messageId).sort()).toEqual([
      'race-0',
      'race-1',
      'race-2',
      'race-3',
      'race-4',
      'race-5',
    ]);
  });

  it('REST respond with an Idempotency-Key applies once; the key with another body is refused', async () => {
    const created = await rpc(base, 'SendMessage', send('rest-1'), { token: alice.token });
    const id = created.body.result.task.id;
    const body = { state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'on it' }] } };
    const headers = { 'idempotency-key': 'respond-1' };
    const one = await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body, headers });
    const two = await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body, headers });
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(two.body.history).toHaveLength(2);
    const other = await rest(hub, 'POST', `api/tasks/${id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_COMPLETED' },
      headers,
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const task = await rest(hub, 'GET', `api/tasks/${id}`, { token: alice.token });
    expect(task.body.status.state).toBe('TASK_STATE_WORKING');
  });
});

describe('rate limits', () => {
  it('refuses the 31st task a minute from one agent to another with 429 / -32029, storing nothing', async () => {
    const carol = await register(hub, 'carol');
    await register(hub, 'dave');
    const daveBase = `${hub.url}agents/dave/`;
    await awayFromWindowEdge(60_000);
    for (let i = 0; i < 30; i++) {
      const ok = await rpc(daveBase, 'SendMessage', send(`rl-${i}`), { token: carol.token });
      expect(ok.status).toBe(200);
    }
    const refused = await rpc(daveBase, 'SendMessage', send('rl-30'), { token: carol.token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe(-32029);
    expect(refused.body.error.message).toMatch(/30 tasks a minute/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const listed = await rpc(daveBase, 'ListTasks', {}, { token: carol.token });
    expect(listed.body.result.totalSize).toBe(30);
    const otherPair = await rpc(base, 'SendMessage', send('rl-other'), { token: carol.token });
    expect(otherPair.status).toBe(200);
  });
});
