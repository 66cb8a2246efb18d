/**
 * The JSON-RPC lane (src/doors/http/lane.ts) answers the A2A door's plain calls without fastify,
 * and fastify answers the rest. A call gets the same answer, headers and request line either
 * way: each case here is sent as clients usually send it (the lane takes it), then with a
 * Content-Type spelling the lane leaves to fastify, and then with a chunked body (fastify again).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/observability/logger.js';
import { register, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let alice: Registered;
let base: string;
let taskId: string;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const logger = createLogger('info', { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  hub = await startTestHub({}, logger);
  alice = await register(hub, 'alice');
  await register(hub, 'bob');
  base = `${hub.url}agents/bob/`;
  const sent = await rpc(
    base,
    'SendMessage',
    { message: { messageId: 'm-lane', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    { token: alice.token },
  );
  taskId = sent.body.result.task.id;
});
afterAll(() => hub.destroy());

type Shape = 'plain' | 'spelled' | 'chunked';

/** One POST in the given shape; its answer, header names and request line. */
async function post(shape: Shape, body: string, headers: Record<string, string> = {}, url = base) {
  const type = shape === 'spelled' ? 'application/json;charset=UTF-8' : 'application/json';
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(body));
      controller.close();
    },
  });
  const reqId = `lane-${shape}-${Math.random().toString(36).slice(2)}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': type, 'a2a-version': '1.0', 'x-request-id': reqId, ...headers },
    body: shape === 'chunked' ? stream : body,
    ...(shape === 'chunked' ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await res.text();
  await new Promise((r) => setTimeout(r, 20)); // the request line is written as the answer closes
  const line = lines.find((l) => l['reqId'] === reqId);
  return {
    status: res.status,
    body: text === '' ? undefined : JSON.parse(text),
    type: res.headers.get('content-type'),
    authenticate: res.headers.get('www-authenticate'),
    echoedId: res.headers.get('x-request-id') === reqId,
    // fastify closes the connection after a body it could not parse (it may not have read all of
    // it); the lane has read the whole body, by its Content-Length, and keeps the connection.
    headerNames: [...res.headers.keys()].filter((name) => name !== 'connection' && name !== 'keep-alive').sort(),
    line: line && {
      method: line['method'],
      route: line['route'],
      rpc: line['rpc'],
      status: line['status'],
      caller: line['caller'],
    },
  };
}

/** Sends the case in every shape and expects one answer. */
async function sameEverywhere(body: string, headers: Record<string, string> = {}, url = base) {
  const [plain, spelled, chunked] = [
    await post('plain', body, headers, url),
    await post('spelled', body, headers, url),
    await post('chunked', body, headers, url),
  ];
  expect(spelled).toEqual(plain);
  expect(chunked).toEqual(plain);
  expect(plain.echoedId).toBe(true);
  expect(plain.line).toBeDefined();
  return plain;
}

const call = (method: string, params: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('the JSON-RPC lane and fastify answer alike', () => {
  it('a read with a token: the task, its headers and the request line', async () => {
    const got = await sameEverywhere(call('GetTask', { id: taskId }), { authorization: `Bearer ${alice.token}` });
    expect(got.status).toBe(200);
    expect(got.body.result.id).toBe(taskId);
    expect(got.type).toBe('application/json; charset=utf-8');
    expect(got.line).toEqual({
      method: 'POST',
      route: '/agents/:handle/',
      rpc: 'GetTask',
      status: 200,
      caller: 'alice',
    });
  });

  it('the base without its slash, and the hub base', async () => {
    const got = await sameEverywhere(
      call('GetTask', { id: taskId }),
      { authorization: `Bearer ${alice.token}` },
      base.slice(0, -1),
    );
    expect(got.line?.route).toBe('/agents/:handle');
    const hubBase = await sameEverywhere(
      call('GetTask', { id: taskId }),
      { authorization: `Bearer ${alice.token}` },
      hub.url,
    );
    expect(hubBase.line?.route).toBe('/');
  });

  it('a task the caller may not see, and a notification (no answer)', async () => {
    const hidden = await sameEverywhere(call('GetTask', { id: taskId }));
    expect(hidden.body.error.code).toBe(-32001);
    const notification = await sameEverywhere(
      JSON.stringify({ jsonrpc: '2.0', method: 'GetTask', params: { id: taskId } }),
    );
    expect(notification.status).toBe(204);
    expect(notification.body).toBeUndefined();
  });

  it('a token that is not live: 401 with WWW-Authenticate, in the JSON-RPC envelope', async () => {
    const got = await sameEverywhere(call('GetTask', { id: taskId }), { authorization: 'Bearer mst_not-a-live-token' });
    expect(got.status).toBe(401);
    expect(got.authenticate).toBe('Bearer realm="muster"');
    expect(got.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32010 } });
  });

  it('a body that is not JSON, one nested too deep, and an agent that does not exist', async () => {
    expect((await sameEverywhere('{"jsonrpc": "2.0", ')).body.error.code).toBe(-32700);
    const deep = `${'['.repeat(70)}${']'.repeat(70)}`;
    expect((await sameEverywhere(call('GetTask', { id: JSON.parse(deep) }))).body.error.code).toBe(-32600);
    const nobody = await sameEverywhere(call('GetTask', { id: taskId }), {}, `${hub.url}agents/nobody/`);
    expect(nobody.body.error.message).toContain('nobody');
  });

  it('a write from a web page of another site is refused', async () => {
    const got = await sameEverywhere(call('GetTask', { id: taskId }), { origin: 'https://elsewhere.example' });
    expect(got.status).toBe(403);
    expect(got.body.error.message).toContain('elsewhere.example');
  });

  it('a body that arrives in pieces, split inside a character, reads as it was sent', async () => {
    const text = 'héllo ✓ 🚀 done';
    const body = Buffer.from(
      call('SendMessage', { message: { messageId: 'm-split', role: 'ROLE_USER', parts: [{ text }] } }),
    );
    const cut = body.indexOf(Buffer.from('🚀')) + 2; // inside the 4-byte character
    const { port } = new URL(hub.url);
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve, reject) => {
      let got = '';
      socket.on('data', (chunk) => {
        got += chunk.toString('utf8');
        if (got.includes('\r\n\r\n') && got.trimEnd().endsWith('}')) resolve(got);
      });
      socket.on('error', reject);
    });
    const head = [
      'POST /agents/bob/ HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'A2A-Version: 1.0',
      `Authorization: Bearer ${alice.token}`,
      `Content-Length: ${body.length}`,
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n`);
    socket.write(body.subarray(0, cut));
    await new Promise((r) => setTimeout(r, 50)); // the first piece is read on its own
    socket.write(body.subarray(cut));
    const raw = await answer;
    socket.destroy();
    const sent = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(sent.result.task.history[0].parts[0].text).toBe(text);
  });
});
