/**
 * The HTTP limits and framing refusals, against a real hub on 127.0.0.1 driven by raw node:net
 * sockets: headers and whole requests sent too slowly are cut at their settings (small here: 1 s
 * and 2 s) and answered 408 in the hub's error shape; an idle keep-alive connection is closed at
 * its setting; what node's parser refuses (headers too large, bad chunked encoding, a bad request
 * line) gets the hub's error shape too; a slow answer and a stream outlive every limit; the limits'
 * settings and their defaults. A stopping hub: http-limits-stopping.test.ts; clients that leave:
 * http-limits-leaving.test.ts.
 * This is HTTP-level behaviour, the same on either store: it runs on SQLite, and on PostgreSQL
 * under MUSTER_TEST_PG (the fixtures make that free).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/index.js';
import { resolveConfig } from './helpers/config.js';
import { ADMIN_TOKEN, rest, type Registered, type TestHub } from './helpers/hub.js';
import {
  answerOf,
  eventually,
  expectQuietLog,
  HEADERS_MS,
  KEEP_ALIVE_MS,
  limitedHub,
  REQUEST_MS,
} from './helpers/http-limits.js';
import { sleep } from './helpers/nodes.js';
import { postRpc, sseBlocks } from './helpers/sse.js';

/** How late a cut may come on a busy machine: node checks every tenth of the shorter limit, plus scheduling. */
const LATE_MS = 800;
/** An id the hub makes: its process's random prefix, then a count in base 36. */
const MADE_ID = /^[A-Za-z0-9_-]{12}-[0-9a-z]+$/;

const limited = limitedHub();
const { lines, exchange, host } = limited;
let hub: TestHub;
let alice: Registered;
let bob: Registered;
beforeAll(() => {
  ({ hub, alice, bob } = limited.parties());
});

/** The hub's error shape, with `code` and `status`, and the connection closed after it. */
function expectHubError(text: string, status: number, code: string): ReturnType<typeof answerOf> {
  const answer = answerOf(text);
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['connection']).toBe('close');
  expect(answer.body).toEqual({
    error: expect.objectContaining({ code, status, message: expect.any(String), hint: expect.any(String) }),
  });
  expect(Object.keys(answer.body.error).sort()).toEqual(['code', 'hint', 'message', 'status']);
  return answer;
}

describe('request limits, held to their settings', () => {
  it('headers sent one byte at a time are cut at headersTimeoutMs, with a 408 in the hub shape and one log line', async () => {
    const slow = await exchange(`GET /health HTTP/1.1\r\n${host()}X-Slow: `, { bytes: 'abcdef', everyMs: 100 });
    const after = await slow.closed;
    expect(after).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(after).toBeLessThan(HEADERS_MS + LATE_MS);
    const answer = expectHubError(slow.received(), 408, 'REQUEST_TIMEOUT');
    expect(answer.body.error.message).toBe(
      "The request did not arrive in time: the hub waits 1 s for a request's headers and 2 s for all of it",
    );
    expect(answer.headers['x-request-id']).toMatch(MADE_ID);
    const line = await eventually('the refusal line', () =>
      lines.find((l) => l['reqId'] === answer.headers['x-request-id']),
    );
    expect(line).toMatchObject({
      level: 30,
      msg: 'request refused before it was read',
      status: 408,
      reason: 'ERR_HTTP_REQUEST_TIMEOUT',
    });
    expect(line['err']).toBeUndefined();
  });

  it('a connection that sends nothing is cut at headersTimeoutMs', async () => {
    const idle = await exchange('');
    const after = await idle.closed;
    expect(after).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(after).toBeLessThan(HEADERS_MS + LATE_MS);
    expectHubError(idle.received(), 408, 'REQUEST_TIMEOUT');
  });

  it('a body sent one byte at a time is cut at requestTimeoutMs: 408 in the hub shape, one request line with its route and status', async () => {
    const start = `POST /api/agents HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: 200\r\nX-Request-Id: slow-body-1\r\n\r\n{`;
    const slow = await exchange(start, { bytes: ' ', everyMs: 100 });
    const after = await slow.closed;
    expect(after).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(after).toBeLessThan(REQUEST_MS + LATE_MS);
    const answer = expectHubError(slow.received(), 408, 'REQUEST_TIMEOUT');
    expect(answer.headers['x-request-id']).toBe('slow-body-1');
    await eventually('the request line', () => lines.find((l) => l['reqId'] === 'slow-body-1'));
    expect(lines.filter((l) => l['reqId'] === 'slow-body-1')).toEqual([
      expect.objectContaining({ level: 30, msg: 'request', method: 'POST', route: '/api/agents', status: 408 }),
    ]);
  });

  it('an idle keep-alive connection is closed at keepAliveTimeoutMs (node adds one second after the advertised timeout)', async () => {
    const conn = await exchange(`GET /health HTTP/1.1\r\n${host()}\r\n`);
    const answered = await eventually('the answer', () =>
      conn.received().includes('"status":"ok"') ? Date.now() : undefined,
    );
    const answer = answerOf(conn.received());
    expect(answer.status).toBe(200);
    expect(answer.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    await conn.closed;
    const idleFor = Date.now() - answered;
    expect(idleFor).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    expect(idleFor).toBeLessThan(KEEP_ALIVE_MS + 1_000 + LATE_MS);
  });

  it("on a kept-alive connection the next request's headers limit runs from its first byte", async () => {
    const conn = await exchange(`GET /health HTTP/1.1\r\n${host()}\r\n`);
    await eventually('the answer', () => (conn.received().includes('"status":"ok"') ? true : undefined));
    await sleep(500);
    const first = Date.now();
    conn.socket.write(`GET /health HTTP/1.1\r\n${host()}X-Request-Id: slow-second\r\nX-Slow: `);
    const timer = setInterval(() => conn.socket.destroyed || conn.socket.write('a'), 100);
    await conn.closed;
    clearInterval(timer);
    const after = Date.now() - first;
    expect(after).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(after).toBeLessThan(HEADERS_MS + LATE_MS);
    const second = conn.received().slice(conn.received().indexOf('HTTP/1.1 408'));
    expectHubError(second, 408, 'REQUEST_TIMEOUT');
  });

  it('a connection in use is not cut: requests one after another over more than every limit', async () => {
    const conn = await exchange('');
    const began = Date.now();
    let answers = 0;
    while (Date.now() - began < REQUEST_MS + 1_000) {
      conn.socket.write(`GET /health HTTP/1.1\r\n${host()}\r\n`);
      await eventually('an answer', () =>
        conn.received().split('HTTP/1.1 200').length - 1 > answers ? true : undefined,
      );
      answers++;
      await sleep(300);
    }
    expect(conn.socket.destroyed).toBe(false);
    expect(answers).toBeGreaterThanOrEqual(8);
    conn.socket.destroy();
  });

  it('an answer that takes longer than requestTimeoutMs is not cut: a blocking declaration answered when its intent lands', async () => {
    expect((await rest(hub, 'POST', 'api/spaces', { token: alice.token, body: { name: 'slow' } })).status).toBe(201);
    expect(
      (
        await rest(hub, 'PUT', `api/spaces/slow/members/${bob.handle}`, {
          token: alice.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBeLessThan(300);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'waits-long',
          role: 'ROLE_USER',
          parts: [{ text: 'Wait for me' }, { data: { footprint: ['src/**'] } }],
        },
      },
    });
    const conn = await exchange(
      `POST /spaces/slow/ HTTP/1.1\r\n${host()}Content-Type: application/json\r\nAuthorization: Bearer ${alice.token}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const began = Date.now();
    const intents = async () =>
      (await rest(hub, 'GET', 'api/spaces/slow/intents?state=claimable', { token: bob.token })).body.data as {
        id: string;
      }[];
    let id: string | undefined;
    while (!id) id = (await intents())[0]?.id;
    // The worker lands the intent only after the request limit has passed; the declaration waits for it.
    await sleep(REQUEST_MS + 500 - (Date.now() - began));
    expect(conn.received()).toBe('');
    expect((await rest(hub, 'POST', `api/tasks/${id}/claim`, { token: bob.token, body: {} })).status).toBe(200);
    expect(
      (await rest(hub, 'POST', `api/tasks/${id}/land`, { token: bob.token, body: { summary: 'Landed late.' } })).status,
    ).toBe(200);
    await eventually('the answer', () => (conn.received().includes('\r\n\r\n{') ? true : undefined));
    const answer = answerOf(conn.received());
    expect(answer.status).toBe(200);
    expect(answer.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    conn.socket.destroy();
  });

  it('a live stream outlives every limit: heartbeats and events keep coming after requestTimeoutMs', async () => {
    const res = await postRpc(
      `${hub.url}agents/bob/`,
      'SendStreamingMessage',
      { message: { messageId: 'long-stream', role: 'ROLE_USER', parts: [{ text: 'stay' }] } },
      { token: alice.token },
    );
    expect(res.status).toBe(200);
    const began = Date.now();
    const blocks = sseBlocks(res.body!.getReader());
    const first = (await blocks.next()).value!;
    const taskId = first.data.result.task.id as string;
    let heartbeatsLate = 0;
    while (Date.now() - began < REQUEST_MS + KEEP_ALIVE_MS + 1_000) {
      const block = (await blocks.next()).value!;
      if (block.comment !== undefined && Date.now() - began > REQUEST_MS) heartbeatsLate++;
    }
    expect(heartbeatsLate).toBeGreaterThan(3);
    // Past every limit, the stream still carries the task's events to their end.
    expect(
      (
        await rest(hub, 'POST', `api/tasks/${taskId}/respond`, {
          token: bob.token,
          body: { state: 'TASK_STATE_COMPLETED' },
        })
      ).status,
    ).toBe(200);
    let last;
    for await (const block of blocks) if (block.data) last = block.data;
    expect(last.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('framing errors in the hub shape', () => {
  it('header fields over 16 KiB: 431 HEADERS_TOO_LARGE', async () => {
    const big = await exchange(`GET /health HTTP/1.1\r\n${host()}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await big.closed;
    const answer = expectHubError(big.received(), 431, 'HEADERS_TOO_LARGE');
    expect(answer.body.error.message).toBe('The request line and header fields are larger than 16384 bytes');
  });

  it('bad chunked encoding, before and in the middle of the body: 400 INVALID_REQUEST naming what the parser refused', async () => {
    for (const [id, chunks] of [
      ['bad-chunk-1', 'zz\r\n'],
      ['bad-chunk-2', '2\r\n{}\r\nqq\r\n'],
    ] as const) {
      const bad = await exchange(
        `POST /api/agents HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nX-Request-Id: ${id}\r\n\r\n${chunks}`,
      );
      await bad.closed;
      const answer = expectHubError(bad.received(), 400, 'INVALID_REQUEST');
      expect(answer.body.error.message).toBe('The request is not valid HTTP/1.1: Invalid character in chunk size');
      expect(answer.headers['x-request-id']).toBe(id);
      await eventually('the request line', () => lines.find((l) => l['reqId'] === id));
      expect(lines.filter((l) => l['reqId'] === id)).toEqual([
        expect.objectContaining({ level: 30, msg: 'request', route: '/api/agents', status: 400 }),
      ]);
    }
  });

  it('Content-Length and Transfer-Encoding together, and a request line that is not HTTP: 400 INVALID_REQUEST', async () => {
    const both = await exchange(
      `POST /api/agents HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    );
    await both.closed;
    expectHubError(both.received(), 400, 'INVALID_REQUEST');
    const nonsense = await exchange('HELLO THERE\r\n\r\n');
    await nonsense.closed;
    expect(expectHubError(nonsense.received(), 400, 'INVALID_REQUEST').body.error.message).toBe(
      'The request is not valid HTTP/1.1: Invalid method encountered',
    );
  });

  it('HTTP/2 in clear text, and a request with no Host: 400 INVALID_REQUEST saying so', async () => {
    const h2 = await exchange('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    await h2.closed;
    expect(expectHubError(h2.received(), 400, 'INVALID_REQUEST').body.error.message).toBe(
      'The hub does not speak HTTP/2 in clear text',
    );
    const hostless = await exchange('GET /health HTTP/1.1\r\n\r\n');
    await eventually('the answer', () => (hostless.received().includes('}}') ? true : undefined));
    const answer = answerOf(hostless.received());
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: {
        code: 'INVALID_REQUEST',
        status: 400,
        message: 'The request has no Host header',
        hint: "Send Host: the hub's host and port, such as 127.0.0.1:7420",
      },
    });
    hostless.socket.destroy();
  });

  it('refusals before a request was read are counted in muster_requests_total as method "(unread)"', async () => {
    const res = await fetch(`${hub.url}metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const text = await res.text();
    for (const status of [400, 408, 431])
      expect(text).toMatch(
        new RegExp(`muster_requests_total\\{door="rest",method="\\(unread\\)",status="${status}"\\} [1-9]`),
      );
  });
});

it('nothing in this whole file was logged as a warning or an error, and no line carries a stack', () => {
  expectQuietLog(lines, 10);
});

describe('the settings', () => {
  const base = { port: '0', db: 'sqlite:/tmp/unused.db' };

  it('default to 10 s for headers, 30 s for the whole request and 65 s for an idle connection', () => {
    expect(resolveConfig(base, {}).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
    });
  });

  it('come from flags, the environment or the file like every setting, and the headers limit may not exceed the request limit', () => {
    expect(
      resolveConfig(
        { ...base, requestTimeoutMs: '5000', headersTimeoutMs: '2000' },
        { MUSTER_KEEP_ALIVE_TIMEOUT_MS: '9000' },
      ).http,
    ).toEqual({ headersTimeoutMs: 2_000, requestTimeoutMs: 5_000, keepAliveTimeoutMs: 9_000 });
    expect(() => resolveConfig({ ...base, requestTimeoutMs: '5000' }, {})).toThrow(
      new ConfigError('the default --headers-timeout-ms (10000) must not be more than --request-timeout-ms (5000)'),
    );
    expect(() => resolveConfig(base, { MUSTER_REQUEST_TIMEOUT_MS: '0' })).toThrow(ConfigError);
  });
});
