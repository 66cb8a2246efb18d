import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let alice: Registered;
let base: string;

beforeAll(async () => {
  hub = await startTestHub();
  alice = await register(hub, 'alice');
  await register(hub, 'bob');
  base = `${hub.url}agents/bob/`;
});
afterAll(() => hub.destroy());

const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    headers: res.headers,
    body: JSON.parse(await res.text()),
  };
};

const send = (messageId: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hi' }], ...extra },
});

describe('JSON-RPC envelope errors', () => {
  it('-32700 for a body that is not JSON', async () => {
    const res = await post(base, '{"jsonrpc": "2.0", ');
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(res.type).toContain('application/json');
  });

  it.each([
    ['a wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}'],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]'],
    ['a missing method', '{"jsonrpc":"2.0","id":1,"params":{}}'],
    ['a non-object body', '"GetTask"'],
    ['an id of the wrong type', '{"jsonrpc":"2.0","id":{"a":1},"method":"GetTask"}'],
    ['params that are not structured', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":"x"}'],
  ])('-32600 for %s', async (_what, body) => {
    const res = await post(base, body);
    expect(res.body.error.code).toBe(-32600);
    expect(res.body.error.data[0]['@type']).toBe('type.googleapis.com/google.rpc.ErrorInfo');
  });

  it('-32601 for an unknown method, echoing the id', async () => {
    const res = await rpc(base, 'tasks/list-everything', {}, { id: 'abc' });
    expect(res.body).toMatchObject({ id: 'abc', error: { code: -32601 } });
  });

  it('-32602 naming the field for invalid params', async () => {
    const missing = await rpc(
      base,
      'SendMessage',
      { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    );
    expect(missing.body.error.code).toBe(-32602);
    expect(missing.body.error.message).toContain('message.messageId');
    const wrongType = await rpc(base, 'GetTask', { id: 'x', historyLength: 'ten' }, { token: alice.token });
    expect(wrongType.body.error.message).toContain('historyLength');
    const badRole = await rpc(base, 'SendMessage', send('r1', { role: 'boss' }), { token: alice.token });
    expect(badRole.body.error.message).toContain('message.role');
    const noParts = await rpc(base, 'SendMessage', send('r2', { parts: [] }), { token: alice.token });
    expect(noParts.body.error.message).toContain('message.parts');
    const violation = noParts.body.error.data.find((d: any) => d['@type'].endsWith('BadRequest'));
    expect(violation.fieldViolations[0].field).toBe('params.message.parts');
  });

  it('-32009 for an A2A-Version other than 0.3 or 1.0; both of those and none are served', async () => {
    const bad = await rpc(base, 'GetTask', { id: 'x' }, { headers: { 'a2a-version': '99.0' } });
    expect(bad.body.error.code).toBe(-32009);
    expect(bad.body.error.data[0].reason).toBe('VERSION_NOT_SUPPORTED');
    const viaQuery = await rpc(`${base}?A2A-Version=2.0`, 'GetTask', { id: 'x' });
    expect(viaQuery.body.error.code).toBe(-32009);
    for (const version of ['1.0', '0.3', undefined]) {
      const ok = await rpc(base, 'GetTask', { id: 'x' }, version ? { headers: { 'a2a-version': version } } : {});
      expect(ok.body.error.code).toBe(-32001);
    }
  });

  it('answers the extended card to a registered caller, in 1.0 and 0.3 shapes, and 401 -32010 to an anonymous one', async () => {
    const card = await rpc(base, 'GetExtendedAgentCard', {}, { token: alice.token });
    expect(card.body.result.capabilities.extendedAgentCard).toBe(true);
    expect(card.body.result.capabilities.extensions.at(-1)).toMatchObject({
      uri: 'urn:muster:extended-card:v1',
      params: { caller: { kind: 'agent', handle: 'alice' } },
    });
    const legacy = await rpc(base, 'agent/getAuthenticatedExtendedCard', {}, { token: alice.token });
    expect(legacy.body.result.protocolVersion).toBe('0.3.0');
    expect(legacy.body.result.capabilities.extensions.at(-1).params.caller.handle).toBe('alice');
    for (const method of ['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']) {
      const anonymous = await rpc(base, method, {});
      expect([method, anonymous.status, anonymous.body.error.code]).toEqual([method, 401, -32010]);
    }
  });

  it('401 with WWW-Authenticate and -32010 for a write without a token, and for any call with a bad token', async () => {
    const write = await rpc(base, 'SendMessage', send('anon-1'));
    expect(write.status).toBe(401);
    expect(write.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(write.body.error.code).toBe(-32010);
    expect(write.body.error.message).toMatch(/bearer token/i);
    const cancel = await rpc(base, 'CancelTask', { id: 'x' });
    expect(cancel.status).toBe(401);
    const forged = await rpc(base, 'GetTask', { id: 'x' }, { token: 'mst_forged' });
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe(-32010);
    const malformed = await rpc(base, 'GetTask', { id: 'x' }, { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
  });

  it('authenticates a write before reading its params: no token is a 401, not a validation error', async () => {
    const res = await rpc(base, 'SendMessage', { message: { parts: 'not even parts' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe(-32010);
  });

  it('never answers a notification (a request without an id), not even with an error', async () => {
    const res = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'GetTask', params: { id: 'no-such-task' } }),
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('a JSON-RPC call to an unknown agent is a JSON 404', async () => {
    const res = await rpc(`${hub.url}agents/ghost/`, 'GetTask', { id: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(-32012);
  });

  it('reads ProtoJSON leniently: null and empty strings as unset, integers as strings, unpadded base64', async () => {
    const res = await rpc(
      base,
      'SendMessage',
      {
        message: {
          messageId: 'lenient-1',
          role: 'ROLE_USER',
          contextId: '',
          taskId: null,
          parts: [{ raw: 'aGVsbG8', mediaType: 'text/plain' }],
        },
        configuration: { historyLength: '1' },
      },
      { token: alice.token },
    );
    expect(res.body.result.task.history).toHaveLength(1);
    const list = await rpc(base, 'ListTasks', { contextId: '', status: '', pageSize: '2' }, { token: alice.token });
    expect(list.body.result.pageSize).toBe(2);
    expect(list.body.result.totalSize).toBeGreaterThan(0);
    const arrayParams = await rpc(base, 'GetTask', [1, 2] as unknown as object, { token: alice.token });
    expect(arrayParams.body.error.code).toBe(-32602);
  });

  it('accepts snake_case request fields and never emits null', async () => {
    const res = await post(
      base,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: {
          message: {
            message_id: 'snake-1',
            role: 'ROLE_USER',
            parts: [{ text: 'hi', media_type: 'text/plain' }],
            context_id: 'ctx-snake',
          },
          configuration: { history_length: 1 },
        },
      }),
      { authorization: `Bearer ${alice.token}` },
    );
    const task = res.body.result.task;
    expect(task.contextId).toBe('ctx-snake');
    expect(task.history[0].parts[0]).toEqual({ text: 'hi', mediaType: 'text/plain' });
    expect(JSON.stringify(res.body)).not.toContain('null');
    const got = await post(
      base,
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'GetTask', params: { id: task.id, history_length: 0 } }),
      { authorization: `Bearer ${alice.token}` },
    );
    expect(got.body.result.history).toBeUndefined();
  });

  it('answers 0.3 method names in 0.3 shapes', async () => {
    const res = await rpc(
      base,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: 'legacy-1',
          role: 'user',
          parts: [
            { kind: 'text', text: 'old client' },
            { kind: 'file', file: { uri: 'https://example.com/a.txt', mimeType: 'text/plain' } },
          ],
        },
      },
      { token: alice.token, headers: { 'a2a-version': '0.3' } },
    );
    const task = res.body.result;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('submitted');
    expect(task.history[0]).toMatchObject({
      kind: 'message',
      role: 'user',
      parts: [
        { kind: 'text', text: 'old client' },
        { kind: 'file', file: { uri: 'https://example.com/a.txt', mimeType: 'text/plain' } },
      ],
    });
    const got = await rpc(base, 'tasks/get', { id: task.id }, { token: alice.token });
    expect(got.body.result.status.state).toBe('submitted');
    const v1 = await rpc(base, 'GetTask', { id: task.id }, { token: alice.token });
    expect(v1.body.result.history[0].parts[1]).toEqual({ url: 'https://example.com/a.txt', mediaType: 'text/plain' });
    const canceled = await rpc(base, 'tasks/cancel', { id: task.id }, { token: alice.token });
    expect(canceled.body.result.status.state).toBe('canceled');
    const badKind = await rpc(
      base,
      'message/send',
      { message: { messageId: 'legacy-2', role: 'user', parts: [{ kind: 'video', url: 'x' }] } },
      { token: alice.token },
    );
    expect(badKind.body.error.code).toBe(-32602);
    expect(badKind.body.error.message).toContain('message.parts[0]');
  });

  it('SendMessage at the hub base without a taskId says where to send', async () => {
    const res = await rpc(hub.url, 'SendMessage', send('hub-1'), { token: alice.token });
    expect(res.body.error.code).toBe(-32004);
    expect(res.body.error.data[0].metadata.hint).toContain('/agents/');
  });

  it('refuses a follow-up whose contextId differs from the task', async () => {
    const created = await rpc(base, 'SendMessage', send('ctx-1'), { token: alice.token });
    const res = await rpc(
      base,
      'SendMessage',
      send('ctx-2', { taskId: created.body.result.task.id, contextId: 'other' }),
      { token: alice.token },
    );
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toContain('message.contextId');
    const unknown = await rpc(base, 'SendMessage', send('ctx-3', { taskId: 'no-such-task' }), { token: alice.token });
    expect(unknown.body.error.code).toBe(-32001);
  });
});
