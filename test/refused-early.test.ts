/**
 * Requests fastify refuses before any hook runs (a URL it cannot decode, answered by
 * `frameworkErrors`) on a real hub on 127.0.0.1: each is one request line in the hub's log, with
 * the X-Request-Id it was answered with, is counted in /metrics like an unknown route, and gets
 * the hub's JSON error body, never HTML or a stack trace.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from './helpers/config.js';
import { createLogger } from '../src/observability/logger.js';
import { startHub, type RunningHub } from '../src/server.js';
import { testDatabase, type TestDatabase } from './helpers/database.js';
import { ADMIN_TOKEN, rest } from './helpers/hub.js';
import { eventually } from './helpers/nodes.js';

type Line = Record<string, unknown>;
/** An id the hub makes: its process's random prefix (12 base64url characters), then a count in base 36. */
const MADE_ID = /^[A-Za-z0-9_-]{12}-[0-9a-z]+$/;

let db: TestDatabase;
let hub: RunningHub;
const lines: Line[] = [];

beforeAll(async () => {
  db = await testDatabase('refused-early');
  // The hub's own logger at info, writing its JSON lines here instead of to stdout.
  const logger = createLogger('info', {
    pretty: false,
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
  });
  hub = await startHub(
    resolveConfig({ port: '0', host: '127.0.0.1', db: db.url }, { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN }),
    { logger },
  );
});
afterAll(async () => {
  await hub?.close();
  await db?.drop();
});

/** One request with its path sent byte for byte (fetch would not send every malformed path as given). */
function raw(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: hub.port, method: 'GET', path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The count of `GET (no route)` answers with `status` in /metrics, and how many latencies that method has. */
async function noRouteCounts(status: number): Promise<{ requests: number; timed: number }> {
  const res = await fetch(`${hub.url}metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    requests: value(
      new RegExp(`^muster_requests_total\\{door="rest",method="GET \\(no route\\)",status="${status}"\\} (\\d+)$`, 'm'),
    ),
    timed: value(/^muster_request_duration_seconds_count\{door="rest",method="GET \(no route\)"\} (\d+)$/m),
  };
}

const requestLine = (reqId: string) =>
  eventually(`the request line of ${reqId}`, async () =>
    lines.find((l) => l['msg'] === 'request' && l['reqId'] === reqId),
  );

describe('a URL fastify cannot decode', () => {
  it.each<[string, Record<string, string>]>([
    ['/%', { 'x-request-id': 'refused-early.1' }],
    ['/api/tasks/%E0%A4%A', {}],
  ])('GET %s is answered in JSON, logged as one request line with its id, and counted', async (path, headers) => {
    const before = await noRouteCounts(400);
    const res = await raw(path, headers);

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.text);
    expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(body.error.message).toMatch(/^The request URL is malformed/);
    expect(res.text).not.toMatch(/<html|\bat .*\.(js|ts):\d+|stack/i);

    const reqId = res.headers['x-request-id'] as string;
    if (headers['x-request-id']) expect(reqId).toBe(headers['x-request-id']);
    else expect(reqId).toMatch(MADE_ID);
    const line = await requestLine(reqId);
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '(no route)', status: 400, caller: 'anonymous' });
    expect(typeof line['ms']).toBe('number');
    expect(line).not.toHaveProperty('rpc');
    expect(lines.filter((l) => l['reqId'] === reqId)).toHaveLength(1); // one line, no error line beside it

    const after = await noRouteCounts(400);
    expect(after.requests - before.requests).toBe(1);
    expect(after.timed - before.timed).toBe(1);
  });

  it('writes the same fields as the line of any other unknown route', async () => {
    const refused = await raw('/%', { 'x-request-id': 'refused-early.2' });
    const unknown = await rest({ url: hub.url }, 'GET', 'no-such-path', {
      headers: { 'x-request-id': 'refused-early.3' },
    });
    expect([refused.status, unknown.status]).toEqual([400, 404]);
    const [a, b] = [await requestLine('refused-early.2'), await requestLine('refused-early.3')];
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    expect(a['route']).toBe(b['route']);
  });
});
