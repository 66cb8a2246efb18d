import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

/** A send answered at once: bob answers later through respond (a blocking send would wait for him, see blocking-send.test.ts). */
const atOnce = (text: string, extra: { taskId?: string } = {}) =>
  sendRequest(text, { ...extra, returnImmediately: true });

let hub: TestHub;
let alice: Registered;
let bob: Registered;
let carol: Registered;
const bobBase = () => `${hub.url}agents/bob/`;

beforeAll(async () => {
  hub = await startTestHub();
  [alice, bob, carol] = await Promise.all([register(hub, 'alice'), register(hub, 'bob'), register(hub, 'carol')]);
});
afterAll(() => hub.destroy());

describe('direct tasks through the official SDK client', () => {
  it('runs the whole flow: send, respond, input-required, follow-up, complete, with history and artifacts', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const sent = wire(await asAlice.sendMessage(atOnce('Please summarise the report')));
    expect(sent.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(sent.metadata.muster).toEqual({ kind: 'direct', from: 'alice', to: 'bob' });
    expect(sent.history).toHaveLength(1);
    const id = sent.id as string;

    const inbox = await rest(hub, 'GET', 'api/inbox', { token: bob.token });
    expect(inbox.status).toBe(200);
    expect(inbox.body.data.map((t: any) => t.id)).toContain(id);
    const entry = inbox.body.data.find((t: any) => t.id === id);
    expect(entry.counterparty.handle).toBe('alice');
    expect(entry.lastMessage.parts[0].text).toBe('Please summarise the report');

    const working = await rest(hub, 'POST', `api/tasks/${id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_WORKING' },
    });
    expect(working.status).toBe(200);
    expect(working.body.status.state).toBe('TASK_STATE_WORKING');

    const ask = await rest(hub, 'POST', `api/tasks/${id}/respond`, {
      token: bob.token,
      body: { state: 'input-required', message: { parts: [{ text: 'Which section?' }] } },
    });
    expect(ask.body.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(ask.body.status.message.role).toBe('ROLE_AGENT');

    const followUp = wire(await asAlice.sendMessage(atOnce('Section 2', { taskId: id })));
    expect(followUp.status.state).toBe('TASK_STATE_WORKING');
    expect(followUp.history.map((m: any) => m.parts[0].text)).toEqual([
      'Please summarise the report',
      'Which section?',
      'Section 2',
    ]);

    const done = await rest(hub, 'POST', `api/tasks/${id}/respond`, {
      token: bob.token,
      body: {
        state: 'TASK_STATE_COMPLETED',
        expectedState: 'TASK_STATE_WORKING',
        message: { parts: [{ text: 'Here it is' }] },
        artifacts: [
          { artifactId: 'summary', name: 'Summary', parts: [{ text: 'Section 2 says…' }, { data: { pages: 3 } }] },
        ],
      },
    });
    expect(done.status).toBe(200);

    const final = wire(await asAlice.getTask({ tenant: '', id, historyLength: 2 }));
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    expect(final.artifacts).toEqual([
      { artifactId: 'summary', name: 'Summary', parts: [{ text: 'Section 2 says…' }, { data: { pages: 3 } }] },
    ]);
    expect(final.history.map((m: any) => m.parts[0].text)).toEqual(['Section 2', 'Here it is']);

    const refused = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'late-1', role: 'ROLE_USER', parts: [{ text: 'one more' }], taskId: id } },
      { token: alice.token, headers: { 'a2a-version': '1.0' } },
    );
    expect(refused.body.error.code).toBe(-32004);
    expect(refused.body.error.message).toContain('TASK_STATE_COMPLETED');
  });

  it('lets the sender cancel; the target cannot, and its later respond gets 409', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(atOnce('cancel me')));
    const byBob = await rpc(bobBase(), 'CancelTask', { id: task.id }, { token: bob.token });
    expect(byBob.status).toBe(403);
    expect(byBob.body.error.code).toBe(-32011);

    const canceled = wire(
      await asAlice.cancelTask({ tenant: '', id: task.id, metadata: { reason: 'no longer needed' } }),
    );
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(canceled.metadata.muster.cancelReason).toBe('no longer needed');

    const again = wire(await asAlice.cancelTask({ tenant: '', id: task.id, metadata: {} }));
    expect(again.status.state).toBe('TASK_STATE_CANCELED');

    const late = await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_COMPLETED' },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.currentState).toBe('TASK_STATE_CANCELED');
    const targetOnCanceled = await rpc(bobBase(), 'CancelTask', { id: task.id }, { token: bob.token });
    expect(targetOnCanceled.status).toBe(403); // permission is decided before the state
  });

  it('refuses to cancel a terminal task with -32002 naming its state', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(atOnce('reject me')));
    await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_REJECTED' },
    });
    const res = await rpc(bobBase(), 'CancelTask', { id: task.id }, { token: alice.token });
    expect(res.body.error.code).toBe(-32002);
    expect(res.body.error.message).toContain('TASK_STATE_REJECTED');
    expect(res.body.error.data[0]).toMatchObject({ reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org' });
  });

  it("an action the task's kind does not have is refused and changes nothing, whatever its name", async () => {
    const task = wire(await (await sdkClient(bobBase(), alice.token)).sendMessage(atOnce('no such action')));
    for (const action of ['close', 'constructor', 'toString', 'nothing']) {
      const res = await rest(hub, 'POST', `api/tasks/${task.id}/${action}`, { token: bob.token, body: {} });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('UNSUPPORTED_OPERATION');
    }
    expect((await rest(hub, 'POST', `api/tasks/${task.id}/close`, { token: carol.token, body: {} })).status).toBe(404); // not theirs to see
    const after = (await rest(hub, 'GET', `api/tasks/${task.id}`, { token: alice.token })).body;
    expect(after.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(after.history).toHaveLength(1);
  });

  it('respond: only the target; the sender gets 403, anyone else 404; expectedState is compare-and-set', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(atOnce('who may respond?')));
    const bySender = await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: alice.token,
      body: { state: 'TASK_STATE_WORKING' },
    });
    expect(bySender.status).toBe(403);
    const byStranger = await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: carol.token,
      body: { state: 'TASK_STATE_WORKING' },
    });
    expect(byStranger.status).toBe(404);
    const stale = await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_COMPLETED', expectedState: 'TASK_STATE_WORKING' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.currentState).toBe('TASK_STATE_SUBMITTED');
    const illegal = await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_CANCELED' },
    });
    expect(illegal.status).toBe(400);
    expect(illegal.body.error.fields[0].field).toBe('state');
    const unknownField = await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: bob.token,
      body: { state: 'TASK_STATE_WORKING', colour: 'red' },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.message).toContain('colour');
    const unchanged = await rest(hub, 'GET', `api/tasks/${task.id}`, { token: alice.token });
    expect(unchanged.body.status.state).toBe('TASK_STATE_SUBMITTED');
  });

  it('keeps tasks private: a third agent sees nothing through any door', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(atOnce('private')));
    const asCarol = await sdkClient(bobBase(), carol.token);
    await expect(asCarol.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
    const hubGet = await rpc(hub.url, 'GetTask', { id: task.id }, { token: carol.token });
    expect(hubGet.body.error.code).toBe(-32001);
    const anonymous = await rpc(hub.url, 'GetTask', { id: task.id });
    expect(anonymous.body.error.code).toBe(-32001);
    const restGet = await rest(hub, 'GET', `api/tasks/${task.id}`, { token: carol.token });
    expect(restGet.status).toBe(404);
    const list = await rpc(bobBase(), 'ListTasks', {}, { token: carol.token });
    expect(list.body.result.tasks.map((t: any) => t.id)).not.toContain(task.id);
    const hubList = await rpc(hub.url, 'ListTasks', {}, { token: carol.token });
    expect(hubList.body.result.tasks.map((t: any) => t.id)).not.toContain(task.id);
    const anonList = await rpc(hub.url, 'ListTasks', {});
    expect(anonList.body.result).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    const inbox = await rest(hub, 'GET', 'api/inbox?state=all', { token: carol.token });
    expect(inbox.body.data.map((t: any) => t.id)).not.toContain(task.id);
  });

  it('lists at an agent door: the pair for others, the whole inbox for the agent itself', async () => {
    await register(hub, 'dora');
    const dora = await register(hub, 'dora-sender');
    const doraBase = `${hub.url}agents/dora/`;
    const fromAlice = wire(await (await sdkClient(doraBase, alice.token)).sendMessage(atOnce('from alice')));
    const fromDoraSender = wire(await (await sdkClient(doraBase, dora.token)).sendMessage(atOnce('from dora-sender')));
    const aliceView = await rpc(doraBase, 'ListTasks', {}, { token: alice.token });
    expect(aliceView.body.result.tasks.map((t: any) => t.id)).toEqual([fromAlice.id]);
    expect(aliceView.body.result.totalSize).toBe(1);
    const doraToken = (
      await rest(hub, 'POST', 'api/agents/dora/token', { headers: { authorization: 'Bearer test-admin-token' } })
    ).body.token;
    const own = await rpc(doraBase, 'ListTasks', {}, { token: doraToken });
    expect(own.body.result.tasks.map((t: any) => t.id)).toEqual([fromDoraSender.id, fromAlice.id]);
  });

  it('pages ListTasks with a token bound to its filters, most recently updated first', async () => {
    const eve = await register(hub, 'eve');
    await register(hub, 'frank');
    const frankBase = `${hub.url}agents/frank/`;
    const asEve = await sdkClient(frankBase, eve.token);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(wire(await asEve.sendMessage(atOnce(`task ${i}`))).id);
    const seen: string[] = [];
    let pageToken = '';
    for (let page = 0; page < 3; page++) {
      const res = await rpc(
        frankBase,
        'ListTasks',
        { page_size: 2, page_token: pageToken, history_length: 0 },
        { token: eve.token },
      );
      expect(res.body.result.pageSize).toBe(2);
      expect(res.body.result.totalSize).toBe(5);
      for (const t of res.body.result.tasks) {
        expect(t.history).toBeUndefined();
        expect(t.artifacts).toBeUndefined();
        seen.push(t.id);
      }
      pageToken = res.body.result.nextPageToken;
    }
    expect(pageToken).toBe('');
    expect(seen).toEqual([...ids].reverse());
    const first = await rpc(frankBase, 'ListTasks', { pageSize: 2 }, { token: eve.token });
    const mismatched = await rpc(
      frankBase,
      'ListTasks',
      { pageSize: 2, pageToken: first.body.result.nextPageToken, status: 'TASK_STATE_WORKING' },
      { token: eve.token },
    );
    expect(mismatched.body.error.code).toBe(-32602);
    expect(mismatched.body.error.message).toContain('pageToken');
    const byState = await rpc(frankBase, 'ListTasks', { status: 'submitted', contextId: 'nope' }, { token: eve.token });
    expect(byState.body.result.totalSize).toBe(0);
    const since = await rpc(
      frankBase,
      'ListTasks',
      { statusTimestampAfter: '2999-01-01T00:00:00Z' },
      { token: eve.token },
    );
    expect(since.body.result.tasks).toEqual([]);
  });

  it('keeps every task and its history across a restart', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(atOnce('survive a restart')));
    await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: bob.token,
      body: {
        state: 'TASK_STATE_COMPLETED',
        message: { parts: [{ text: 'survived' }] },
        artifacts: [{ artifactId: 'a1', parts: [{ text: 'kept' }] }],
      },
    });
    const before = await rest(hub, 'GET', `api/tasks/${task.id}`, { token: alice.token });
    const listBefore = await rpc(hub.url, 'ListTasks', { includeArtifacts: true }, { token: alice.token });
    await hub.restart();
    const after = await rest(hub, 'GET', `api/tasks/${task.id}`, { token: alice.token });
    expect(after.body).toEqual(before.body);
    const listAfter = await rpc(hub.url, 'ListTasks', { includeArtifacts: true }, { token: alice.token });
    expect(listAfter.body.result).toEqual(listBefore.body.result);
    const stillWorks = await rpc(
      bobBase(),
      'SendMessage',
      {
        message: { messageId: 'after-restart', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token },
    );
    expect(stillWorks.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  });
});
