/**
 * The hub's log, read from a real `muster serve` child process: JSON lines on stdout (a pipe is no
 * terminal), one per request with the route pattern, status, duration, caller and request id; the
 * X-Request-Id taken or made and echoed; a client that leaves early is one info line; deliveries
 * are logged, naming a push URL (which may hold a secret) by its origin at most; and no token or
 * credential used in a whole run ever appears in its output.
 */
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import { testDatabase, type TestDatabase } from './helpers/database.js';
import { eventually, logLines, openSse, startNode, stopNodes, type NodeProcess } from './helpers/nodes.js';
import { startWebhook } from './helpers/webhook.js';

const ADMIN = 'logs-test-admin-token-0123456789';
const PUSH_TOKEN = 'push-notification-token-abc';
const PUSH_CREDENTIAL = 'push-credential-xyz-987';
/** An id the hub makes: its process's random prefix (12 base64url characters), then a count in base 36. */
const MADE_ID = /^[A-Za-z0-9_-]{12}-[0-9a-z]+$/;

type Line = Record<string, unknown>;
const requestLines = (node: NodeProcess): Line[] => logLines(node.output()).filter((l) => l['msg'] === 'request');

let db: TestDatabase;
let node: NodeProcess;
const nodes: NodeProcess[] = [];
const secrets: string[] = [ADMIN, PUSH_TOKEN, PUSH_CREDENTIAL];

beforeAll(async () => {
  db = await testDatabase('logs');
  node = await startNode('L', {
    db: db.url,
    cwd: db.dir,
    env: { MUSTER_ADMIN_TOKEN: ADMIN, MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_DELIVERY_RETRIES: '1' },
  });
  nodes.push(node);
});
afterAll(async () => {
  await stopNodes(nodes);
  await db.drop();
});

describe('the request log of a real hub', () => {
  let alice: Registered;
  let bob: Registered;
  let taskId: string;

  it('runs agents, tasks, a push config with a credential, a token rotation and the admin token through the hub', async () => {
    const hook = await startWebhook((n) => (n === 1 ? 503 : 200)); // the first push fails once, then arrives
    alice = await register(node, 'alice');
    bob = await register(node, 'bob');
    secrets.push(alice.token, bob.token);
    const sent = await rpc(
      `${node.url}agents/bob/`,
      'SendMessage',
      { message: { messageId: 'log-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      { token: alice.token, headers: { 'x-request-id': 'client-chosen.id:1' } },
    );
    expect(sent.status).toBe(200);
    expect(sent.headers.get('x-request-id')).toBe('client-chosen.id:1');
    taskId = sent.body.result.task.id;
    const config = {
      taskId,
      id: 'hook-1',
      url: hook.url,
      token: PUSH_TOKEN,
      authentication: { scheme: 'Bearer', credentials: PUSH_CREDENTIAL },
    };
    expect(
      (await rpc(`${node.url}agents/bob/`, 'CreateTaskPushNotificationConfig', config, { token: alice.token })).status,
    ).toBe(200);
    expect(
      (
        await rest(node, 'POST', `api/tasks/${taskId}/respond`, {
          token: bob.token,
          body: { state: 'TASK_STATE_COMPLETED' },
        })
      ).status,
    ).toBe(200);
    await hook.waitFor(2);
    expect(hook.received[1]!.headers['authorization']).toBe(`Bearer ${PUSH_CREDENTIAL}`); // the credential was used

    const rotated = await rest(node, 'POST', 'api/agents/alice/token', { token: alice.token });
    expect(rotated.status).toBe(200);
    secrets.push(rotated.body.token);
    expect(rotated.body.token).not.toBe(alice.token);
    alice = { handle: 'alice', token: rotated.body.token };
    expect((await rest(node, 'GET', 'api/me', { token: rotated.body.token })).body.handle).toBe('alice');
    expect((await rest(node, 'GET', 'api/agents', { token: ADMIN })).status).toBe(200);
    const wrong = await rest(node, 'GET', `api/tasks/${taskId}`, {
      headers: { authorization: 'Bearer not-a-real-token-555' },
    });
    expect(wrong.status).toBe(401);
    secrets.push('not-a-real-token-555');
    await hook.close();
  });

  it('writes one line per request: method, route pattern, status, duration, caller and request id', async () => {
    const lines = await eventually('the request lines', async () => {
      const found = requestLines(node);
      return found.some((l) => l['route'] === '/api/tasks/:id' && l['status'] === 401) ? found : undefined; // the last request made
    });
    const send = lines.find((l) => l['reqId'] === 'client-chosen.id:1');
    expect(send).toMatchObject({
      level: 30,
      method: 'POST',
      route: '/agents/:handle/',
      rpc: 'SendMessage',
      status: 200,
      caller: 'alice',
    });
    expect(typeof send!['ms']).toBe('number');
    const respond = lines.find((l) => l['route'] === '/api/tasks/:id/:action');
    expect(respond).toMatchObject({ method: 'POST', status: 200, caller: 'bob' });
    expect(String(respond!['reqId'])).toMatch(MADE_ID);
    expect(lines.find((l) => l['route'] === '/api/agents' && l['method'] === 'GET')).toMatchObject({
      caller: 'admin',
      status: 200,
    });
    expect(lines.find((l) => l['route'] === '/api/tasks/:id' && l['status'] === 401)).toMatchObject({
      caller: 'anonymous',
    });
    expect(lines.filter((l) => l['route'] === '/api/agents' && l['method'] === 'POST').map((l) => l['caller'])).toEqual(
      ['anonymous', 'anonymous'],
    );
    for (const line of lines) expect(JSON.stringify(line)).not.toContain(taskId); // routes are patterns, not URLs with ids
  });

  it('logs each delivery attempt: channel, task, status and when it is retried', async () => {
    const attempts = await eventually('two delivery lines', async () => {
      const found = logLines(node.output()).filter((l) => l['taskId'] === taskId && l['channel'] === 'push');
      return found.length >= 2 ? found : undefined;
    });
    expect(attempts[0]).toMatchObject({
      level: 40,
      msg: 'delivery failed; it will be retried',
      status: 503,
      attempt: 1,
    });
    expect(Date.parse(String(attempts[0]!['nextRetryAt']))).toBeGreaterThan(0);
    expect(attempts[1]).toMatchObject({ level: 30, msg: 'delivered', status: 200, attempt: 2 });
  });

  it('an operator is logged by its handle, never its token: created, used, rotated, refused once revoked', async () => {
    const made = await rest(node, 'POST', 'api/operators', { token: ADMIN, body: { handle: 'log-op' } });
    expect(made.status).toBe(201);
    secrets.push(made.body.token);
    expect(
      (
        await rest(node, 'GET', 'api/inbox?agent=bob', {
          token: made.body.token,
          headers: { 'x-request-id': 'operator-read' },
        })
      ).status,
    ).toBe(403);
    const rotated = await rest(node, 'POST', 'api/operators/log-op/token', { token: made.body.token });
    secrets.push(rotated.body.token);
    expect((await rest(node, 'GET', 'api/me', { token: made.body.token })).status).toBe(401); // rotated away
    const line = await eventually('the operator line', async () =>
      requestLines(node).find((l) => l['reqId'] === 'operator-read'),
    );
    expect(line).toMatchObject({ route: '/api/inbox', status: 403, caller: 'operator:log-op' });
  });

  it('makes a request id when the one sent is not sane, and echoes it on refusals and unknown routes too', async () => {
    const bad = await fetch(`${node.url}health`, { headers: { 'x-request-id': 'has spaces and "quotes"' } });
    expect(bad.headers.get('x-request-id')).toMatch(MADE_ID);
    const long = await fetch(`${node.url}health`, { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(long.headers.get('x-request-id')).toMatch(MADE_ID);
    const none = await fetch(`${node.url}no/such/route`);
    expect(none.status).toBe(404);
    expect(none.headers.get('x-request-id')).toMatch(MADE_ID);
    expect(new Set([bad, long, none].map((res) => res.headers.get('x-request-id'))).size).toBe(3);
    const refused = await fetch(`${node.url}api/me`, {
      headers: { authorization: 'Bearer nope', 'x-request-id': 'refused-1' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('refused-1');
    secrets.push('nope');
    const line = await eventually('the 404 line', async () =>
      requestLines(node).find((l) => l['reqId'] === none.headers.get('x-request-id')),
    );
    expect(line).toMatchObject({ route: '(no route)', status: 404 });
  });

  it('a stream carries the request id; a client that closes its stream is one info line', async () => {
    const stream = await openSse(
      `${node.url}agents/bob/`,
      'SendStreamingMessage',
      { message: { messageId: 'log-stream', role: 'ROLE_USER', parts: [{ text: 'stream me' }] } },
      { token: alice.token },
    );
    expect(stream.status).toBe(200);
    await stream.waitFor(1);
    stream.close();
    const line = await eventually('the closed stream line', async () =>
      logLines(node.output()).find((l) => l['rpc'] === 'SendStreamingMessage'),
    );
    expect(line).toMatchObject({
      level: 30,
      msg: 'client closed the connection before the answer',
      route: '/agents/:handle/',
      caller: 'alice',
    });
    expect(line['status']).toBeUndefined();
  });

  it('a client that leaves in the middle of its body is one info line, with no stack and no error', async () => {
    const before = logLines(node.output()).length;
    const socket = connect(node.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1:${node.port}\r\nContent-Type: application/json\r\nContent-Length: 500\r\nX-Request-Id: leaves-early\r\n\r\n{"handle":`,
    );
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    const line = await eventually('the abort line', async () =>
      logLines(node.output()).find((l) => l['reqId'] === 'leaves-early'),
    );
    expect(line).toMatchObject({
      level: 30,
      msg: 'client closed the connection before the answer',
      method: 'POST',
      route: '/api/agents',
    });
    const after = logLines(node.output()).slice(before);
    expect(after.filter((l) => l['reqId'] === 'leaves-early')).toHaveLength(1);
    expect(after.filter((l) => Number(l['level']) >= 50)).toEqual([]);
  });

  it('logs a refused redirect by its origin only: a secret in the push URL or the redirect stays out', async () => {
    const PATH_SECRET = 'path-secret-4711';
    const QUERY_SECRET = 'query-secret-0815';
    const LOCATION_SECRET = 'location-secret-2342';
    secrets.push(PATH_SECRET, QUERY_SECRET, LOCATION_SECRET);
    // A receiver that sends every push on to another origin (localhost is not 127.0.0.1's origin).
    const redirector = createServer((req, res) => {
      req.resume();
      const { port } = redirector.address() as AddressInfo;
      res.writeHead(307, { location: `http://localhost:${port}/next?token=${LOCATION_SECRET}` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    try {
      const sent = await rpc(
        `${node.url}agents/bob/`,
        'SendMessage',
        { message: { messageId: 'log-redirect', role: 'ROLE_USER', parts: [{ text: 'push me' }] } },
        { token: alice.token },
      );
      const id = sent.body.result.task.id as string;
      const config = { taskId: id, id: 'redirected', url: `${origin}/hook/${PATH_SECRET}?token=${QUERY_SECRET}` };
      expect(
        (await rpc(`${node.url}agents/bob/`, 'CreateTaskPushNotificationConfig', config, { token: alice.token }))
          .status,
      ).toBe(200);
      expect(
        (
          await rest(node, 'POST', `api/tasks/${id}/respond`, {
            token: bob.token,
            body: { state: 'TASK_STATE_COMPLETED' },
          })
        ).status,
      ).toBe(200);
      const line = await eventually('the refused delivery line', async () =>
        logLines(node.output()).find((l) => l['taskId'] === id && l['channel'] === 'push'),
      );
      expect(line).toMatchObject({ level: 40, msg: 'delivery failed; no more retries' });
      expect(line['error']).toBe(
        `${origin} redirected to another origin (http://localhost:${(redirector.address() as AddressInfo).port}); Muster follows redirects only within ${origin}. Send the final URL instead`,
      );
      const out = node.output();
      for (const secret of [PATH_SECRET, QUERY_SECRET, LOCATION_SECRET]) expect(out).not.toContain(secret);
    } finally {
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });

  it('stops with a line naming the signal; the whole output holds no token or credential, and no stack', async () => {
    expect(await node.stop('SIGTERM')).toBe(0);
    const out = node.output();
    const lines = logLines(out);
    expect(lines.find((l) => l['signal'] === 'SIGTERM')).toMatchObject({ level: 30, msg: 'Muster: SIGTERM, stopping' });
    expect(lines.at(-1)).toMatchObject({ msg: 'Muster stopped' });
    expect(lines.find((l) => String(l['msg']).startsWith('Muster is listening on'))).toMatchObject({
      url: node.url,
      version: expect.any(String),
    });
    expect(secrets.length).toBe(13);
    for (const secret of secrets) expect(out).not.toContain(secret);
    expect(out).not.toMatch(/\bat .*\.ts:\d+/); // no stack frames
    expect(out).not.toMatch(/authorization/i);
    expect(out.split('\n').filter((l) => l.startsWith('[L err]'))).toEqual([]);
  });
});

describe('the log level', () => {
  it('warn hides the request lines but keeps the start and stop lines', async () => {
    const quiet = await startNode('Q', {
      db: db.url,
      cwd: db.dir,
      env: { MUSTER_ADMIN_TOKEN: ADMIN, MUSTER_LOG_LEVEL: 'warn' },
    });
    nodes.push(quiet);
    expect((await fetch(`${quiet.url}health`)).status).toBe(200);
    expect((await fetch(`${quiet.url}api/me`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect(await quiet.stop('SIGTERM')).toBe(0);
    const lines = logLines(quiet.output());
    expect(lines.filter((l) => l['msg'] === 'request')).toEqual([]);
    expect(lines.map((l) => l['msg'])).toEqual([
      `Muster is listening on ${quiet.url}`,
      'Admin token: from MUSTER_ADMIN_TOKEN',
      expect.stringMatching(/^Agents' bases: /),
      'Muster: SIGTERM, stopping',
      'Muster stopped',
    ]);
  });
});
