import { request as httpRequest } from 'node:http';
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

const send = (messageId: string, parts: unknown[]) => ({ message: { messageId, role: 'ROLE_USER', parts } });
const stored = async () => (await rpc(base, 'ListTasks', {}, { token: alice.token })).body.result.totalSize as number;

describe('limits: each refusal is a clear error and stores nothing', () => {
  it.each([
    ['more than 10 parts', Array.from({ length: 11 }, () => ({ text: 'x' })), 'message.parts'],
    ['more than 20,000 text characters', [{ text: 'a'.repeat(15_000) }, { text: 'b'.repeat(5_001) }], 'message.parts'],
    ['a data part over 64 KB', [{ data: { blob: 'x'.repeat(70_000) } }], 'message.parts[0].data'],
    [
      'inline file bytes over 256 KB',
      [{ raw: Buffer.alloc(300 * 1024).toString('base64'), mediaType: 'application/octet-stream' }],
      'message.parts[0].raw',
    ],
    ['an unknown part kind', [{ video: 'https://example.com/v.mp4' }], 'message.parts[0]'],
    ['a part with two kinds', [{ text: 'x', url: 'https://example.com' }], 'message.parts[0]'],
  ])('refuses %s with -32602 naming the field', async (_what, parts, field) => {
    const before = await stored();
    const res = await rpc(base, 'SendMessage', send(`limit-${field}-${parts.length}`, parts), { token: alice.token });
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toContain(`'params.${field}'`);
    expect(res.body.error.data[0].metadata.hint).toBeTruthy();
    expect(await stored()).toBe(before);
  });

  it('accepts a message right at the limits', async () => {
    const res = await rpc(
      base,
      'SendMessage',
      send('at-limit', [{ text: 'a'.repeat(10_000) }, { text: 'b'.repeat(10_000) }]),
      { token: alice.token },
    );
    expect(res.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  });

  it('answers a body over 1 MiB with a JSON 413 the client sees, then closes the connection cleanly', async () => {
    const before = await stored();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: send('huge', [{ text: 'x'.repeat(2 * 1024 * 1024) }]),
    });
    const res = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
      body,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    const json = (await res.json()) as any;
    expect(json.error.code).toBe(-32600);
    expect(json.error.message).toMatch(/1 MiB/);
    expect(await stored()).toBe(before);
  });

  it('answers a chunked oversize body (no Content-Length) with the same JSON 413', async () => {
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const url = new URL(base);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      req.write('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"text":"');
      for (let i = 0; i < 24; i++) req.write(chunk);
      req.end('"}}}');
    });
    expect(status.code).toBe(413);
    expect(JSON.parse(status.body).error.code).toBe(-32600);
  });

  it('refuses content types other than JSON with a JSON 415', async () => {
    const res = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${alice.token}` },
      body: 'hello',
    });
    expect(res.status).toBe(415);
    const json = (await res.json()) as any;
    expect(json.error.code).toBe(-32005);
    expect(json.error.data[0].metadata.hint).toContain('application/json');
  });

  it('never answers with HTML or a stack trace, even on unknown routes', async () => {
    const res = await fetch(`${hub.url}no/such/route`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    const text = await res.text();
    expect(text).not.toMatch(/<html|at .*\.js:\d+/i);
  });
});

describe('limits: the message cap', () => {
  it('a task keeps 200 messages; the 201st is refused as RATE_LIMITED and changes nothing', async () => {
    const open = await startTestHub({ MUSTER_RATE_LIMITS: 'off' }); // the follow-up rate limit would speak first
    try {
      const [ann] = [await register(open, 'ann'), await register(open, 'ben')];
      const at = `${open.url}agents/ben/`;
      const task = (await rpc(at, 'SendMessage', send('cap-0', [{ text: 'first' }]), { token: ann.token })).body.result
        .task;
      const followUp = (n: number) =>
        rpc(
          at,
          'SendMessage',
          { message: { messageId: `cap-${n}`, taskId: task.id, role: 'ROLE_USER', parts: [{ text: `more ${n}` }] } },
          { token: ann.token },
        );
      for (let n = 1; n < 200; n += 50) {
        const answers = await Promise.all(Array.from({ length: Math.min(50, 200 - n) }, (_, k) => followUp(n + k)));
        expect(answers.filter((r) => r.body.result === undefined).map((r) => r.body.error)).toEqual([]);
      }
      const over = await followUp(200);
      expect(over.body.error.code).toBe(-32029);
      expect(over.body.error.message).toContain('at most 200');
      const after = (await rpc(at, 'GetTask', { id: task.id }, { token: ann.token })).body.result;
      expect(after.history).toHaveLength(200);
      expect(JSON.stringify(after)).not.toContain('more 200');
    } finally {
      await open.destroy();
    }
  });
});
