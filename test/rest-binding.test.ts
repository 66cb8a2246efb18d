import {
  AgentCard,
  CancelTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  StreamResponse,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sendRequest, wire } from './helpers/sdk.js';
import { restClient } from './helpers/bindings.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;
const respond = (id: string, body: unknown) => rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body });
const events = (list: StreamResponse[]) => list.map((e) => StreamResponse.toJSON(e) as any);
const stateOf = (e: any): string | undefined => e.task?.status?.state ?? e.statusUpdate?.status?.state;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1' });
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

describe('the HTTP+JSON binding', () => {
  it('is listed on every card at the base itself, and the cards offer an extended card; no gRPC while its port is off', async () => {
    for (const base of [hub.url, bobBase(), `${hub.url}memory/`]) {
      const card = (
        await rest(hub, 'GET', `${base.slice(hub.url.length)}.well-known/agent-card.json`, {
          headers: { 'a2a-version': '1.0' },
        })
      ).body;
      expect(card.supportedInterfaces, base).toContainEqual({
        url: base,
        protocolBinding: 'HTTP+JSON',
        protocolVersion: '1.0',
      });
      expect(card.supportedInterfaces.map((i: any) => i.protocolBinding)).not.toContain('GRPC');
      expect(card.capabilities.extendedAgentCard).toBe(true);
    }
  });

  it('sends, gets with historyLength, lists and cancels through the SDK REST client', async () => {
    const asAlice = await restClient(bobBase(), alice.token);
    const sent = wire(await asAlice.sendMessage(sendRequest('Please look at this', { returnImmediately: true })));
    expect(sent.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(sent.metadata.muster).toEqual({ kind: 'direct', from: 'alice', to: 'bob' });
    const id = sent.id as string;
    expect((await respond(id, { state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'On it' }] } })).status).toBe(
      200,
    );

    const full = wire(await asAlice.getTask({ tenant: '', id }));
    expect(full.history.map((m: any) => m.parts[0].text)).toEqual(['Please look at this', 'On it']);
    const last = wire(await asAlice.getTask({ tenant: '', id, historyLength: 1 }));
    expect(last.status.state).toBe('TASK_STATE_WORKING');
    expect(last.history.map((m: any) => m.parts[0].text)).toEqual(['On it']);

    const listed = ListTasksResponse.toJSON(
      await asAlice.listTasks(ListTasksRequest.fromJSON({ contextId: sent.contextId })),
    ) as any;
    expect(listed.tasks.map((t: any) => t.id)).toEqual([id]);
    // A query value of digits stays a string where the request takes a string (a contextId, a pageToken).
    const digits = await rest(hub, 'GET', 'agents/bob/tasks?contextId=12345&pageSize=5', { token: alice.token });
    expect([digits.status, digits.body.tasks ?? []]).toEqual([200, []]);
    const none = ListTasksResponse.toJSON(
      await asAlice.listTasks(ListTasksRequest.fromJSON({ status: 'TASK_STATE_COMPLETED', contextId: sent.contextId })),
    ) as any;
    expect(none.tasks ?? []).toEqual([]);

    const canceled = wire(await asAlice.cancelTask(CancelTaskRequest.fromJSON({ id })));
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const done = wire(await asAlice.sendMessage(sendRequest('Finish this', { returnImmediately: true })));
    await respond(done.id, { state: 'TASK_STATE_COMPLETED' });
    await expect(asAlice.cancelTask(CancelTaskRequest.fromJSON({ id: done.id }))).rejects.toMatchObject({
      name: 'TaskNotCancelableError',
    });
    const raw = await rest(hub, 'POST', `agents/bob/tasks/${done.id}:cancel`, { token: alice.token });
    expect([raw.status, raw.body.error.status]).toEqual([409, 'FAILED_PRECONDITION']);
  });

  it('streams a send to its end, and resubscribes to a task mid-way', async () => {
    const asAlice = await restClient(bobBase(), alice.token);
    const seen: StreamResponse[] = [];
    for await (const event of asAlice.sendMessageStream(sendRequest('Stream it'))) {
      seen.push(event);
      const json = StreamResponse.toJSON(event) as any;
      if (seen.length === 1) {
        const id = json.task.id as string;
        await respond(id, { state: 'TASK_STATE_WORKING' });
        await respond(id, {
          state: 'TASK_STATE_COMPLETED',
          artifacts: [{ artifactId: 'a1', parts: [{ text: 'done' }] }],
        });
      }
    }
    const sent = events(seen);
    expect(sent.map(stateOf).filter(Boolean)).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
    expect(sent.some((e) => e.artifactUpdate?.artifact?.artifactId === 'a1')).toBe(true);

    const task = wire(await asAlice.sendMessage(sendRequest('Resubscribe to me', { returnImmediately: true })));
    await respond(task.id, { state: 'TASK_STATE_WORKING' });
    const again: StreamResponse[] = [];
    for await (const event of asAlice.resubscribeTask({ tenant: '', id: task.id })) {
      again.push(event);
      if (again.length === 1)
        await respond(task.id, { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'Finished' }] } });
    }
    const resumed = events(again);
    expect(resumed[0].task.status.state).toBe('TASK_STATE_WORKING');
    expect(stateOf(resumed.at(-1))).toBe('TASK_STATE_COMPLETED');
    // A finished task is not subscribed to: the refusal is a google.rpc.Status.
    await expect(async () => {
      for await (const _ of asAlice.resubscribeTask({ tenant: '', id: task.id })) void _;
    }).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });

  it('creates, reads, lists and deletes push configs', async () => {
    const asAlice = await restClient(bobBase(), alice.token);
    const { id } = wire(await asAlice.sendMessage(sendRequest('Push me', { returnImmediately: true })));
    const created = TaskPushNotificationConfig.toJSON(
      await asAlice.createTaskPushNotificationConfig(
        TaskPushNotificationConfig.fromJSON({
          taskId: id,
          id: 'hook-1',
          url: 'http://127.0.0.1:9/never',
          token: 'tok',
        }),
      ),
    ) as any;
    expect(created).toMatchObject({ taskId: id, id: 'hook-1', url: 'http://127.0.0.1:9/never' });
    const got = TaskPushNotificationConfig.toJSON(
      await asAlice.getTaskPushNotificationConfig({ tenant: '', taskId: id, id: 'hook-1' }),
    ) as any;
    expect(got.url).toBe('http://127.0.0.1:9/never');
    const listed = await asAlice.listTaskPushNotificationConfig({ tenant: '', taskId: id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((c) => c.id)).toEqual(['hook-1']);
    await asAlice.deleteTaskPushNotificationConfig({ tenant: '', taskId: id, id: 'hook-1' });
    await expect(asAlice.getTaskPushNotificationConfig({ tenant: '', taskId: id, id: 'hook-1' })).rejects.toThrow(
      /hook-1/,
    );
    const raw = await rest(hub, 'GET', `agents/bob/tasks/${id}/pushNotificationConfigs`, { token: alice.token });
    expect(raw.body).toEqual({ configs: [], nextPageToken: '' });
  });

  it('answers the extended card to a registered caller, and 401 UNAUTHENTICATED to an anonymous one', async () => {
    const asAlice = await restClient(bobBase(), alice.token);
    const card = AgentCard.toJSON(await asAlice.getAgentCard()) as any;
    expect(card.name).toBe('bob');
    expect(card.capabilities.extensions.at(-1)).toMatchObject({
      uri: 'urn:muster:extended-card:v1',
      params: {
        caller: { kind: 'agent', handle: 'alice' },
        agent: { handle: 'bob', paused: false, forwarding: false },
      },
    });
    const anonymous = await rest(hub, 'GET', 'agents/bob/extendedAgentCard');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(anonymous.body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect(anonymous.body.error.details[0]).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'UNAUTHENTICATED',
      domain: 'muster.hub',
    });
  });

  it('refuses with google.rpc.Status and ErrorInfo: a 404 for an unknown task (which the SDK reads), a 400 naming the field', async () => {
    const missing = await rest(hub, 'GET', 'agents/bob/tasks/no-such-task', { token: alice.token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    expect(missing.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(missing.body.error.details[0]).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
    });
    const asAlice = await restClient(bobBase(), alice.token);
    await expect(asAlice.getTask({ tenant: '', id: 'no-such-task' })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });

    const tooMany = await rest(hub, 'GET', 'agents/bob/tasks?pageSize=500', { token: alice.token });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.status).toBe('INVALID_ARGUMENT');
    expect(tooMany.body.error.details[1]).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'pageSize' }],
    });
    const badJson = await fetch(`${bobBase()}message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', authorization: `Bearer ${alice.token}` },
      body: '{"message":',
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as any).error.details[0].reason).toBe('PARSE_ERROR');
    const verb = await rest(hub, 'POST', 'agents/bob/tasks/some-id:explode', { token: alice.token });
    expect([verb.status, verb.body.error.status]).toEqual([404, 'NOT_FOUND']);
  });

  it('takes application/a2a+json and application/json, answers application/json, needs a token to write, and serves the hub, unknown bases and kind bases', async () => {
    for (const type of ['application/a2a+json', 'application/json']) {
      const body = JSON.stringify(sendRequestJson('Typed body'));
      const typed = await fetch(`${bobBase()}message:send`, {
        method: 'POST',
        headers: { 'content-type': type, authorization: `Bearer ${alice.token}` },
        body,
      });
      expect(typed.status, type).toBe(200);
      // A2A 1.0.0 (and its conformance kit, HTTP_JSON-SVC-001) answer application/json.
      expect(typed.headers.get('content-type'), type).toMatch(/^application\/json/);
      const task = ((await typed.json()) as any).task;
      expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
      const got = await fetch(`${bobBase()}tasks/${task.id}`, { headers: { authorization: `Bearer ${alice.token}` } });
      expect([got.status, got.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    }
    const body = JSON.stringify(sendRequestJson('Typed body'));
    const anonymous = await fetch(`${bobBase()}message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(anonymous.status).toBe(401);
    const nobody = await rest(hub, 'POST', 'agents/nobody/message:send', {
      token: alice.token,
      body: sendRequestJson('Hello?'),
    });
    expect([nobody.status, nobody.body.error.details[0].reason]).toEqual([404, 'AGENT_NOT_FOUND']);
    const atHub = await rest(hub, 'GET', 'tasks', { token: alice.token });
    expect(atHub.status).toBe(200);
    expect(Array.isArray(atHub.body.tasks)).toBe(true);
    const atMemory = await rest(hub, 'GET', 'memory/tasks', { token: alice.token });
    expect(atMemory.status).toBe(200);
    // A space's base: reads need no token there, writes do; an unknown space is SPACE_NOT_FOUND.
    expect((await rest(hub, 'POST', 'api/spaces', { token: alice.token, body: { name: 'rest-space' } })).status).toBe(
      201,
    );
    const spaceList = await rest(hub, 'GET', 'spaces/rest-space/tasks');
    expect([spaceList.status, Array.isArray(spaceList.body.tasks)]).toEqual([200, true]);
    const spaceWrite = await rest(hub, 'POST', 'spaces/rest-space/message:send', { body: sendRequestJson('Declare?') });
    expect([spaceWrite.status, spaceWrite.body.error.status]).toEqual([401, 'UNAUTHENTICATED']);
    const noSpace = await rest(hub, 'GET', 'spaces/no-space/tasks');
    expect([noSpace.status, noSpace.body.error.details[0].reason]).toEqual([404, 'SPACE_NOT_FOUND']);
    const version = await rest(hub, 'GET', 'tasks', { token: alice.token, headers: { 'a2a-version': '9.9' } });
    expect([version.status, version.body.error.details[0].reason]).toEqual([400, 'VERSION_NOT_SUPPORTED']);
  });

  it('reads ?A2A-Version= as it reads the header: 1.0 and 0.3 pass, another version is refused', async () => {
    for (const ok of ['1.0', '0.3', '1.0.1'])
      expect((await rest(hub, 'GET', `agents/bob/tasks?A2A-Version=${ok}`, { token: alice.token })).status, ok).toBe(
        200,
      );
    const refused = await rest(hub, 'POST', 'agents/bob/message:send?A2A-Version=2.0', {
      token: alice.token,
      body: sendRequestJson('Never stored'),
    });
    expect([refused.status, refused.body.error.status, refused.body.error.details[0].reason]).toEqual([
      400,
      'FAILED_PRECONDITION',
      'VERSION_NOT_SUPPORTED',
    ]);
    const viaRpc = await rest(hub, 'POST', 'agents/bob/?A2A-Version=2.0', {
      token: alice.token,
      body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
    });
    expect(viaRpc.body.error.code).toBe(-32009);
  });

  it('a doubled slash after a base reaches the same route, on both bindings', async () => {
    const sent = await rest(hub, 'POST', 'agents/bob//message:send', {
      token: alice.token,
      body: sendRequestJson('Double slash'),
    });
    expect([sent.status, sent.body.task?.metadata?.muster?.to]).toEqual([200, 'bob']);
    const got = await rest(hub, 'GET', `agents//bob//tasks/${sent.body.task.id}`, { token: alice.token });
    expect([got.status, got.body.id]).toEqual([200, sent.body.task.id]);
    const rpc = await rest(hub, 'POST', 'agents/bob//', {
      token: alice.token,
      body: { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: sent.body.task.id } },
    });
    expect([rpc.status, rpc.body.result?.id]).toEqual([200, sent.body.task.id]);
  });

  it('an unknown path under an A2A base is a google.rpc.Status 404; elsewhere the REST 404 stays', async () => {
    for (const [method, path] of [
      ['GET', 'agents/bob/nope'],
      ['GET', 'agents/bob/tasks/x/y'],
      ['PUT', 'agents/bob/message:send'],
      ['GET', 'spaces/any/nope'],
      ['GET', 'memory/nope'],
      ['GET', 'tasks/x/y'],
      ['GET', 'agents/bob//nope'],
    ]) {
      const res = await rest(hub, method!, path!, { token: alice.token });
      expect([res.status, res.headers.get('content-type')], path).toEqual([
        404,
        expect.stringMatching(/^application\/json/),
      ]);
      expect(res.body.error, path).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(res.body.error.details[0], path).toMatchObject({
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'ROUTE_NOT_FOUND',
      });
      expect(res.body.error.details[0].metadata.hint).toMatch(/message:send/);
    }
    const elsewhere = await rest(hub, 'GET', 'no/such/route');
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });
});

function sendRequestJson(text: string) {
  return {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
    configuration: { returnImmediately: true },
  };
}
