/**
 * GET /metrics on a real hub: who may read it, and that each metric moves when the hub does the
 * thing it counts (requests, task writes, streams, deliveries, the outbox backlog, scheduler lag,
 * store commits), read back from the Prometheus text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  register,
  registerAll,
  rest,
  rpc,
  startTestHub,
  type Registered,
  type TestHub,
} from './helpers/hub.js';
import { eventually, openSse } from './helpers/nodes.js';
import { dataParams, openData, reviewRequest } from './helpers/review.js';
import { startWebhook } from './helpers/webhook.js';

/** The samples of a Prometheus text, keyed `name{label="value",…}` with the labels sorted. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => `${m[1]}="${m[2]}"`).sort();
    found.set(labels.length ? `${match[1]}{${labels.join(',')}}` : match[1]!, Number(match[3]));
  }
  return found;
}

/** One sample: `labels` in any order; 0 when the series does not exist yet. */
const sample = (all: Map<string, number>, name: string, labels: Record<string, string> = {}): number => {
  const keys = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  return all.get(keys.length ? `${name}{${keys.join(',')}}` : name) ?? 0;
};

async function scrape(hub: { url: string }, token: string | undefined = ADMIN_TOKEN): Promise<Map<string, number>> {
  const res = await fetch(`${hub.url}metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return samples(await res.text());
}

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;
const send = async (messageId: string, token = alice.token) =>
  (
    await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'count me' }] } },
      { token },
    )
  ).body.result.task.id as string;

beforeAll(async () => {
  hub = await startTestHub({
    MUSTER_ALLOW_PRIVATE_TARGETS: '1',
    MUSTER_DELIVERY_RETRIES: '60',
    MUSTER_REVIEW_MIN_DEADLINE_S: '1',
  });
  [alice, bob] = await registerAll(hub, 'alice', 'bob');
});
afterAll(() => hub.destroy());

describe('GET /metrics', () => {
  it('needs the admin token: 401 without a token, 403 with an agent token, both as REST errors', async () => {
    const anonymous = await rest(hub, 'GET', 'metrics');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatchObject({
      code: 'UNAUTHENTICATED',
      status: 401,
      message: 'GET /metrics needs the admin token',
    });
    expect(anonymous.body.error.hint).toContain('--metrics public');
    expect(anonymous.body.error.hint).not.toMatch(/json-?rpc/i);
    const agent = await rest(hub, 'GET', 'metrics', { token: alice.token });
    expect(agent.status).toBe(403);
    expect(agent.body.error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    const bad = await rest(hub, 'GET', 'metrics', { token: 'not-a-token' });
    expect(bad.status).toBe(401);
  });

  it('is open to anyone on a hub started with --metrics public', async () => {
    const open = await startTestHub({ MUSTER_METRICS: 'public' });
    try {
      const all = await scrape(open, undefined);
      expect(all.has('muster_nodejs_eventloop_lag_seconds')).toBe(true);
      expect(
        sample(await scrape(open, undefined), 'muster_requests_total', {
          door: 'rest',
          method: 'GET /metrics',
          status: '200',
        }),
      ).toBe(1);
    } finally {
      await open.destroy();
    }
  });

  it('counts requests by door, method and status, with a latency histogram', async () => {
    const before = await scrape(hub);
    const id = await send('metrics-1');
    await send('metrics-2');
    await rpc(bobBase(), 'NoSuchMethod', {}, { token: alice.token });
    await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'TASK_STATE_WORKING' } });
    await rest(hub, 'GET', `api/tasks/${id}`, { token: 'not-a-token' });
    const after = await scrape(hub);
    const moved = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('muster_requests_total', { door: 'jsonrpc', method: 'SendMessage', status: '200' })).toBe(2);
    expect(moved('muster_requests_total', { door: 'jsonrpc', method: 'unknown', status: '200' })).toBe(1); // JSON-RPC errors answer 200
    expect(moved('muster_requests_total', { door: 'rest', method: 'POST /api/tasks/:id/:action', status: '200' })).toBe(
      1,
    );
    expect(moved('muster_requests_total', { door: 'rest', method: 'GET /api/tasks/:id', status: '401' })).toBe(1);
    expect(moved('muster_request_duration_seconds_count', { door: 'jsonrpc', method: 'SendMessage' })).toBe(2);
    expect(
      moved('muster_request_duration_seconds_bucket', { door: 'jsonrpc', method: 'SendMessage', le: '+Inf' }),
    ).toBe(2);
    expect(moved('muster_request_duration_seconds_bucket', { door: 'jsonrpc', method: 'SendMessage', le: '120' })).toBe(
      2,
    ); // buckets are cumulative
    expect(moved('muster_request_duration_seconds_sum', { door: 'jsonrpc', method: 'SendMessage' })).toBeGreaterThan(0);
    expect([...after.keys()].some((k) => k.includes(id))).toBe(false); // routes are patterns: no task id in a label
  });

  it('counts task writes by kind and state, and store commits with their size', async () => {
    const before = await scrape(hub);
    const id = await send('metrics-3');
    await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'TASK_STATE_COMPLETED' } });
    const after = await scrape(hub);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('muster_tasks_written_total', { kind: 'direct', state: 'TASK_STATE_SUBMITTED' })).toBe(1);
    expect(moved('muster_tasks_written_total', { kind: 'direct', state: 'TASK_STATE_COMPLETED' })).toBe(1);
    expect(moved('muster_store_commit_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(moved('muster_store_commit_seconds_sum')).toBeGreaterThan(0);
    expect(moved('muster_store_commit_batch_size_count')).toBeGreaterThanOrEqual(2);
    expect(moved('muster_store_commit_batch_size_sum')).toBeGreaterThanOrEqual(2);
  });

  it('shows open streams while they are open', async () => {
    const before = sample(await scrape(hub), 'muster_open_streams');
    const id = await send('metrics-stream');
    const stream = await openSse(bobBase(), 'SubscribeToTask', { id }, { token: alice.token });
    await stream.waitFor(1);
    expect(sample(await scrape(hub), 'muster_open_streams')).toBe(before + 1);
    stream.close();
    expect(
      await eventually('the stream closed', async () =>
        sample(await scrape(hub), 'muster_open_streams') === before ? true : undefined,
      ),
    ).toBe(true);
  });

  it('counts delivery outcomes by channel, the outbox backlog, and how late the outbox ran', async () => {
    const ok = await startWebhook(() => 200);
    const failing = await startWebhook(() => 503);
    try {
      const before = await scrape(hub);
      for (const [messageId, url] of [
        ['metrics-push-ok', ok.url],
        ['metrics-push-bad', failing.url],
      ] as const) {
        const id = await send(messageId);
        await rpc(
          bobBase(),
          'CreateTaskPushNotificationConfig',
          { taskId: id, id: 'hook', url },
          { token: alice.token },
        );
        await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'TASK_STATE_WORKING' } });
      }
      await Promise.all([ok.waitFor(1), failing.waitFor(1)]);
      const after = await eventually('both outcomes counted', async () => {
        const all = await scrape(hub);
        return sample(all, 'muster_deliveries_total', { channel: 'push', outcome: 'retry' }) >
          sample(before, 'muster_deliveries_total', { channel: 'push', outcome: 'retry' }) &&
          sample(all, 'muster_deliveries_total', { channel: 'push', outcome: 'delivered' }) >
            sample(before, 'muster_deliveries_total', { channel: 'push', outcome: 'delivered' })
          ? all
          : undefined;
      });
      const moved = (name: string, labels: Record<string, string> = {}) =>
        sample(after, name, labels) - sample(before, name, labels);
      expect(moved('muster_deliveries_total', { channel: 'push', outcome: 'delivered' })).toBe(1);
      expect(moved('muster_deliveries_total', { channel: 'push', outcome: 'retry' })).toBe(1);
      expect(sample(after, 'muster_outbox_backlog')).toBe(1); // the failed one waits 60 s for its retry
      expect(moved('muster_scheduler_lag_seconds_count', { worker: 'outbox' })).toBe(2);
    } finally {
      await Promise.all([ok.close(), failing.close()]);
    }
  });

  it('measures how late a review deadline ran', async () => {
    const before = sample(await scrape(hub), 'muster_scheduler_lag_seconds_count', { worker: 'deadlines' });
    const carol = await register(hub, 'carol');
    const posted = await rpc(hub.url, 'SendMessage', dataParams(openData(reviewRequest(1_500))), {
      token: carol.token,
    });
    expect(posted.status).toBe(200);
    expect(posted.body.result.task.id).toBeTruthy();
    const ran = await eventually(
      'the deadline ran',
      async () => {
        const count = sample(await scrape(hub), 'muster_scheduler_lag_seconds_count', { worker: 'deadlines' });
        return count > before ? count : undefined;
      },
      15_000,
      200,
    );
    expect(ran).toBe(before + 1);
  });
});
