import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  awayFromWindowEdge,
  register,
  registerAll,
  rest,
  rpc,
  startTestHub,
  type Registered,
  type TestHub,
} from './helpers/hub.js';
import { sdkClient } from './helpers/sdk.js';
import { dataParams, sendData } from './helpers/review.js';

let hub: TestHub;
let ann: Registered, ben: Registered;
const admin = { token: ADMIN_TOKEN };

beforeAll(async () => {
  await awayFromWindowEdge(86_400_000, 15_000); // the daily quotas under test must not reset mid-file
  hub = await startTestHub();
  [ann, ben] = await registerAll(hub, 'ann', 'ben');
});
afterAll(() => hub.destroy());

const openCall = (title: string) => ({
  skill: 'call.open',
  args: { title, question: 'Which topics should the next paper on agent hubs cover?' },
});
const answer = (body: string, stance?: string) => ({ ...(stance ? { stance } : {}), body });
const LONG = 'Delivery guarantees and how subscribers resume after a reconnect.';
const reason = (body: any) => body.error.data[0].reason;

describe('open calls', () => {
  it('the admin opens a call; each agent answers once, public at once; the admin closes it', async () => {
    const call = await sendData(await sdkClient(hub.url, ADMIN_TOKEN), openCall('Next paper'));
    expect(call.status.state).toBe('TASK_STATE_WORKING');
    expect(call.id).toBe(call.contextId);
    expect(call.metadata.muster).toMatchObject({ kind: 'call', call: { title: 'Next paper' } });

    const asAnn = await sdkClient(hub.url, ann.token);
    const answered = await sendData(asAnn, answer(LONG, 'support'), call.id);
    expect(answered.history.at(-1).parts[0].data).toEqual({ stance: 'support', body: LONG });

    // Anyone reads the answer at once, with no agent named.
    const seen = (await rpc(hub.url, 'GetTask', { id: call.id })).body.result;
    expect(seen.history.map((m: any) => m.parts[0].data?.body).filter(Boolean)).toEqual([LONG]);
    expect(JSON.stringify(seen)).not.toContain('ann');
    expect((await rest(hub, 'GET', `api/tasks/${call.id}`)).body.history).toHaveLength(2);
    const listed = (await rpc(hub.url, 'ListTasks', { contextId: call.id })).body.result;
    expect(listed.tasks.map((t: any) => t.id)).toEqual([call.id]);

    const again = await rpc(hub.url, 'SendMessage', dataParams(answer(`${LONG} Again.`), call.id), {
      token: ann.token,
    });
    expect(again.body.error.code).toBe(-32013);
    expect(reason(again.body)).toBe('ALREADY_CONTRIBUTED');
    const short = await rpc(hub.url, 'SendMessage', dataParams(answer('Too short'), call.id), { token: ben.token });
    expect(short.body.error.data[1].fieldViolations[0].field).toBe('params.message.parts[0].data.body');
    const stance = await rpc(hub.url, 'SendMessage', dataParams(answer(LONG, 'maybe'), call.id), { token: ben.token });
    expect(stance.body.error.data[1].fieldViolations[0].field).toBe('params.message.parts[0].data.stance');
    const secret = await rpc(
      hub.url,
      'SendMessage',
      dataParams(answer('Write to me at ben.private@mailbox.org about it.'), call.id),
      { token: ben.token },
    );
    expect(reason(secret.body)).toBe('PRIVATE_CONTENT');
    expect((await rpc(hub.url, 'GetTask', { id: call.id })).body.result.history).toHaveLength(2);

    expect((await rpc(hub.url, 'CancelTask', { id: call.id }, admin)).body.error.code).toBe(-32002);
    const notYours = await rest(hub, 'POST', `api/tasks/${call.id}/close`, { token: ann.token, body: {} });
    expect(notYours.status).toBe(403);
    const closed = await rpc(hub.url, 'SendMessage', dataParams({ skill: 'call.close' }, call.id), admin);
    expect(closed.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const late = await rpc(hub.url, 'SendMessage', dataParams(answer(LONG), call.id), { token: ben.token });
    expect(late.body.error.code).toBe(-32004);
    // Closing again is harmless and writes nothing: the task's status keeps its time, and no write is counted.
    const completedWrites = async () => {
      const text = await (
        await fetch(`${hub.url}metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).text();
      return text
        .split('\n')
        .find((l) => l.startsWith('muster_tasks_written_total{kind="call",state="TASK_STATE_COMPLETED"}'));
    };
    const writesBefore = await completedWrites();
    expect(writesBefore).toMatch(/ 1$/);
    const reclosed = await rest(hub, 'POST', `api/tasks/${call.id}/close`, { token: ADMIN_TOKEN, body: {} });
    expect(reclosed.body.status).toEqual(closed.body.result.task.status);
    const closeAgain = await rpc(hub.url, 'SendMessage', dataParams({ skill: 'call.close' }, call.id), admin);
    expect(closeAgain.body.result.task.status).toEqual(closed.body.result.task.status);
    expect(closeAgain.body.result.task.history).toHaveLength(closed.body.result.task.history.length);
    expect(await completedWrites()).toBe(writesBefore);
  });

  it('only the admin opens calls; 10 answers a day per agent', async () => {
    const byAgent = await rpc(hub.url, 'SendMessage', dataParams(openCall('Mine')), { token: ann.token });
    expect(byAgent.body.error.code).toBe(-32011);
    const calls: string[] = [];
    for (let i = 0; i < 11; i++)
      calls.push((await rpc(hub.url, 'SendMessage', dataParams(openCall(`Call ${i}`)), admin)).body.result.task.id);
    for (const id of calls.slice(0, 10))
      expect(
        (await rpc(hub.url, 'SendMessage', dataParams(answer(LONG), id), { token: ben.token })).body.result,
      ).toBeDefined();
    const eleventh = await rpc(hub.url, 'SendMessage', dataParams(answer(LONG), calls[10]), { token: ben.token });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.error.data[0].metadata.quota).toBe('call.answer');
    expect((await rpc(hub.url, 'GetTask', { id: calls[10] })).body.result.history).toHaveLength(1);
  });

  it('a call takes 300 answers; the 301st is refused as TASK_FULL and changes nothing', async () => {
    const call = (await rpc(hub.url, 'SendMessage', dataParams(openCall('Crowded')), admin)).body.result.task;
    const agents = await Promise.all(
      Array.from({ length: 301 }, (_, i) => register(hub, `crowd-${i}`, {}, ADMIN_TOKEN)),
    );
    for (let i = 0; i < 300; i += 50) {
      const answers = await Promise.all(
        agents
          .slice(i, i + 50)
          .map((a, k) =>
            rpc(hub.url, 'SendMessage', dataParams(answer(`${LONG} Answer ${i + k}.`), call.id), { token: a.token }),
          ),
      );
      expect(answers.filter((r) => r.body.result === undefined).map((r) => r.body.error)).toEqual([]);
    }
    const full = await rpc(hub.url, 'SendMessage', dataParams(answer(`${LONG} One too many.`), call.id), {
      token: agents[300]!.token,
    });
    expect(full.body.error.code).toBe(-32013);
    expect(reason(full.body)).toBe('TASK_FULL');
    const after = (await rpc(hub.url, 'GetTask', { id: call.id })).body.result;
    expect(after.status.state).toBe('TASK_STATE_WORKING');
    expect(after.history).toHaveLength(301); // the question and 300 answers
    expect(JSON.stringify(after)).not.toContain('One too many');
  });
});
