/**
 * A claimed work intent's life after the claim: a lease that runs out, withdrawal, a question
 * to the declarer, blocking declarations (1.0 and 0.3) that wait for the landing, and claims
 * racing for one intent. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest, rpc, type Registered, type TestHub } from './helpers/hub.js';
import { startIntentsHub, type IntentsHub } from './helpers/intents.js';
import { eventually, sleep } from './helpers/nodes.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered;
let spaceUrl: IntentsHub['spaceUrl'], declare: IntentsHub['declare'], act: IntentsHub['act'];

beforeAll(async () => {
  ({ hub, owner, orch, worker, other, spaceUrl, declare, act } = await startIntentsHub());
});
afterAll(() => hub.destroy());

/** A 0.3 message declaring an intent: its title as text, its footprint as data. */
const legacyDeclaration = (title: string, footprint: string) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [
    { kind: 'text', text: title },
    { kind: 'data', data: { footprint: [footprint] } },
  ],
});

/** The worker claims and lands the intent titled `title` once it is declared (a blocking declaration's is not answered yet). */
const landOnceDeclared = async (title: string, summary: string): Promise<void> => {
  const id = await eventually(
    `the intent '${title}' to be declared`,
    async () =>
      (await rest(hub, 'GET', 'api/spaces/links/intents?state=claimable&limit=50')).body.data.find(
        (i: any) => i.title === title,
      )?.id,
  );
  await act(id, 'claim', worker.token);
  await act(id, 'land', worker.token, { summary });
};

describe('declaring and working an intent', () => {
  it('a lease that runs out returns the intent to SUBMITTED once, and another worker claims it', async () => {
    const intent = await declare('links', 'Short lease work', { footprint: ['lease/**'] });
    expect((await act(intent.id, 'claim', worker.token, { leaseSeconds: 1 })).status).toBe(200);
    const reopened = await eventually('the lease to run out', async () => {
      const t = (await rpc(spaceUrl('links'), 'GetTask', { id: intent.id })).body.result;
      return t.status.state === 'TASK_STATE_SUBMITTED' ? t : undefined;
    });
    expect(reopened.status.message.parts[0].text).toMatch(/ran out/);
    expect(reopened.metadata.muster.worker).toBeUndefined();
    const late = await act(intent.id, 'heartbeat', worker.token);
    expect(late.status).toBe(409);
    const again = await act(intent.id, 'claim', other.token, { leaseSeconds: 60 });
    expect(again.body.metadata.muster.worker).toBe('other');
    await sleep(600); // the expired lease's work ran once: the new claim stands
    const held = (await rpc(spaceUrl('links'), 'GetTask', { id: intent.id })).body.result;
    expect(held.status.state).toBe('TASK_STATE_WORKING');
    expect(held.metadata.muster.worker).toBe('other');
  });

  it('withdrawing: cancel while held stops the worker; canceled answers as it is; landed cannot be canceled', async () => {
    const intent = await declare('links', 'Withdrawn work', { footprint: ['gone/**'] });
    await act(intent.id, 'claim', worker.token, { leaseSeconds: 60 });
    expect(
      (
        await rpc(
          spaceUrl('links'),
          'CancelTask',
          { id: intent.id, metadata: { reason: 'x' } },
          { token: worker.token },
        )
      ).body.error.code,
    ).toBe(-32011);
    const canceled = await rpc(
      spaceUrl('links'),
      'CancelTask',
      { id: intent.id, metadata: { reason: 'the plan changed' } },
      { token: orch.token },
    );
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    expect(canceled.body.result.status.message.parts[0].text).toContain('the plan changed');
    expect(canceled.body.result.metadata.muster.cancelReason).toBe('the plan changed');
    const beat = await act(intent.id, 'heartbeat', worker.token);
    expect(beat.status).toBe(409);
    expect(beat.body.error.message).toMatch(/withdrawn/);
    expect((await act(intent.id, 'land', worker.token, { summary: 'done anyway' })).status).toBe(409);
    const twice = await rpc(spaceUrl('links'), 'CancelTask', { id: intent.id }, { token: owner.token });
    expect(twice.body.result.status.state).toBe('TASK_STATE_CANCELED');

    const landedOne = await declare('links', 'Landed work', { footprint: ['landed/**'] });
    await act(landedOne.id, 'claim', worker.token);
    await act(landedOne.id, 'land', worker.token, { summary: 'Landed.' });
    const late = await rpc(spaceUrl('links'), 'CancelTask', { id: landedOne.id }, { token: orch.token });
    expect(late.body.error.code).toBe(-32002);
    expect(late.body.error.message).toContain('TASK_STATE_COMPLETED');
  });

  it('input-required: the worker asks, the declarer answers with the taskId, the work goes on with the lease kept', async () => {
    const intent = await declare('links', 'Ambiguous work', { footprint: ['amb/**'] });
    await act(intent.id, 'claim', worker.token, { leaseSeconds: 60 });
    const asked = await act(intent.id, 'input-required', worker.token, { message: 'Per caller or per address?' });
    expect(asked.body.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.body.status.message.parts[0].text).toBe('Per caller or per address?');
    const byOther = await rpc(
      spaceUrl('links'),
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: intent.id, parts: [{ text: 'per address' }] } },
      { token: other.token },
    );
    expect(byOther.body.error.code).toBe(-32011);
    const answered = await rpc(
      spaceUrl('links'),
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: intent.id, parts: [{ text: 'Per address.' }] },
        configuration: { returnImmediately: true },
      },
      { token: orch.token },
    );
    expect(answered.body.result.task.status.state).toBe('TASK_STATE_WORKING');
    expect(answered.body.result.task.metadata.muster.worker).toBe('worker');
    expect((await act(intent.id, 'progress', worker.token, { message: 'Going per address.' })).status).toBe(200);
  });

  it('a blocking SendMessage waits for the landing; one nobody lands answers as it stands when the wait runs out', async () => {
    const landing = landOnceDeclared('Blocking work', 'Landed while you waited.');
    const blocking = await rpc(
      spaceUrl('links'),
      'SendMessage',
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'Blocking work' }, { data: { footprint: ['block/**'] } }],
        },
      },
      { token: orch.token },
    );
    await landing;
    expect(blocking.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const started = Date.now();
    const waited = await rpc(
      spaceUrl('links'),
      'SendMessage',
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'Nobody takes this' }, { data: { footprint: ['none/**'] } }],
        },
      },
      { token: orch.token },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    expect(waited.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  });

  it('0.3 names answer in 0.3 shapes; message/send waits only when blocking is true', async () => {
    const url = spaceUrl('links');
    const sent = await rpc(
      url,
      'message/send',
      { message: legacyDeclaration('Legacy work', 'legacy/**') },
      { token: orch.token },
    );
    expect(sent.body.result.kind).toBe('task');
    expect(sent.body.result.status.state).toBe('submitted');
    expect(sent.body.result.contextId).toBe('links');
    const read = await rpc(url, 'tasks/get', { id: sent.body.result.id });
    expect(read.body.result.status.state).toBe('submitted');
    await act(sent.body.result.id, 'claim', worker.token);
    const canceled = await rpc(url, 'tasks/cancel', { id: sent.body.result.id }, { token: orch.token });
    expect(canceled.body.result.status.state).toBe('canceled');

    // with blocking: true, the 0.3 send waits for the landing and answers it in 0.3 shapes
    const landing = landOnceDeclared('Legacy blocking work', 'Landed for the 0.3 caller.');
    const blocked = await rpc(
      url,
      'message/send',
      { message: legacyDeclaration('Legacy blocking work', 'legacy-block/**'), configuration: { blocking: true } },
      { token: orch.token },
    );
    await landing;
    expect(blocked.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(blocked.body.result.artifacts[0]).toMatchObject({ name: 'Landing' });
  });

  it('claims racing for one intent: exactly one wins', async () => {
    const intent = await declare('links', 'Raced work', { footprint: ['race/**'] });
    const results = await Promise.all(
      [worker, other, worker, other, worker, other].map((w) => act(intent.id, 'claim', w.token)),
    );
    const winners = new Set(results.filter((r) => r.status === 200).map((r) => r.body.metadata.muster.worker));
    expect(winners.size).toBe(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409)).toBe(true);
  });
});
