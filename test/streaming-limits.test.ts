import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { register, rest, rpc, startTestHub } from './helpers/hub.js';

let hub: Awaited<ReturnType<typeof startTestHub>>;
let alice: { token: string };
let bob: { token: string };

beforeAll(async () => {
  // Short intervals so the test sees heartbeats and a slow subscriber being let go.
  hub = await startTestHub({
    MUSTER_SSE_HEARTBEAT_MS: '200',
    MUSTER_SSE_DRAIN_TIMEOUT_MS: '500',
    MUSTER_MAX_STREAMS_PER_CALLER: '3',
  });
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

const newTask = async (messageId: string) =>
  (
    await rpc(
      `${hub.url}agents/bob/`,
      'SendMessage',
      { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    )
  ).body.result.task.id as string;

function openStream(id: string) {
  const url = new URL(`${hub.url}agents/bob/`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } });
  return new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
      },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('stream upkeep', () => {
  it('holds each caller to a number of open streams, refused as -32029 before any work is done', async () => {
    const id = await newTask('slots-1');
    const open = await Promise.all([openStream(id), openStream(id), openStream(id)]);
    const refused = await rpc(`${hub.url}agents/bob/`, 'SubscribeToTask', { id }, { token: alice.token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe(-32029);
    const before = (await rpc(`${hub.url}agents/bob/`, 'ListTasks', {}, { token: alice.token })).body.result.totalSize;
    const streamSend = await rpc(
      `${hub.url}agents/bob/`,
      'SendStreamingMessage',
      { message: { messageId: 'slots-2', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    );
    expect(streamSend.body.error.code).toBe(-32029);
    expect((await rpc(`${hub.url}agents/bob/`, 'ListTasks', {}, { token: alice.token })).body.result.totalSize).toBe(
      before,
    );
    open[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await openStream(id);
    expect(again.statusCode).toBe(200);
    for (const s of [...open, again]) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
  });

  it('sends a comment line on idle streams', async () => {
    const res = await openStream(await newTask('beat-1'));
    let text = '';
    res.on('data', (c) => (text += c));
    await new Promise((r) => setTimeout(r, 700));
    res.destroy();
    expect(text.match(/^: keep-alive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
  });

  it('lets go of a subscriber that stops reading; the hub and other subscribers carry on', async () => {
    const id = await newTask('slow-1');
    const slow = await openStream(id);
    slow.pause(); // never reads: the socket fills up
    const fast = await openStream(id);
    let fastText = '';
    fast.on('data', (c) => (fastText += c));
    const big = Array.from({ length: 5 }, () => ({ data: { blob: 'y'.repeat(60_000) } })); // 300 KB a message
    for (let i = 0; i < 30; i++) {
      const res = await rest(hub, 'POST', `api/tasks/${id}/respond`, {
        token: bob.token,
        body: { state: 'TASK_STATE_WORKING', message: { parts: big } },
      });
      expect(res.status).toBe(200);
    }
    await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'TASK_STATE_COMPLETED' } });
    await new Promise((r) => setTimeout(r, 1500));
    const ended = new Promise<string>((resolve) => {
      let text = '';
      slow.on('data', (c) => (text += c));
      slow.on('end', () => resolve(text));
      slow.on('close', () => resolve(text));
    });
    slow.resume();
    const slowText = await ended;
    expect(slowText).not.toContain('TASK_STATE_COMPLETED'); // it was closed before the end
    const lastId = Math.max(...[...slowText.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])));
    expect(lastId).toBeLessThan(32);
    expect(fastText).toContain('TASK_STATE_COMPLETED');
    // it can resume where it stopped, with Last-Event-ID
    const resumed = await fetch(`${hub.url}agents/bob/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${alice.token}`,
        'last-event-id': String(lastId),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id } }),
    });
    const rest2 = await resumed.text();
    const ids = [...rest2.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(lastId + 1); // the snapshot of a resumed stream carries no id
    expect(rest2).toContain('TASK_STATE_COMPLETED');
  }, 30_000);
});
