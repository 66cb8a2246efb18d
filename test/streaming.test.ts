import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamResponse } from '@a2a-js/sdk';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';
import { postRpc, sseBlocks } from './helpers/sse.js';

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

const respond = (id: string, body: object) => rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body });
const kinds = (events: any[]) => events.map((e) => Object.keys(e)[0]);

/** Raw SSE over the JSON-RPC POST: parsed events with their ids, until the stream closes or `stopAfter` events. */
async function sse(
  url: string,
  method: string,
  params: unknown,
  options: {
    token?: string;
    lastEventId?: number;
    rpcId?: number | string;
    stopAfter?: number;
    signal?: AbortSignal;
  } = {},
) {
  const res = await postRpc(url, method, params, options);
  const events: { id?: number; data: any }[] = [];
  const comments: string[] = [];
  if (!res.headers.get('content-type')?.includes('text/event-stream'))
    return { status: res.status, json: (await res.json()) as any, events, comments };
  const reader = res.body!.getReader();
  for await (const block of sseBlocks(reader)) {
    if (block.comment !== undefined) comments.push(block.comment);
    if (block.data !== undefined)
      events.push({ ...(block.id !== undefined ? { id: block.id } : {}), data: block.data });
    if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
      await reader.cancel();
      break;
    }
  }
  return { status: res.status, json: undefined as any, events, comments };
}

describe('streaming through the official SDK client', () => {
  it('sendMessageStream: the Task first, then every update made by the target, closing at the terminal state', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const seen: any[] = [];
    let id = '';
    const done = (async () => {
      for await (const event of asAlice.sendMessageStream(sendRequest('stream me'))) {
        const json = StreamResponse.toJSON(event) as any;
        seen.push(json);
        if (json.task) {
          id = json.task.id;
          await respond(id, { state: 'TASK_STATE_WORKING' });
          await respond(id, { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'which one?' }] } });
        }
        if (json.statusUpdate?.status.state === 'TASK_STATE_INPUT_REQUIRED') {
          await asAlice.sendMessage(sendRequest('the first', { taskId: id }));
          await respond(id, {
            state: 'TASK_STATE_COMPLETED',
            artifacts: [{ artifactId: 'out', parts: [{ text: 'result' }] }],
          });
        }
      }
    })();
    await done;
    expect(kinds(seen)).toEqual([
      'task',
      'statusUpdate',
      'statusUpdate',
      'statusUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(seen[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(
      seen
        .slice(1)
        .filter((e) => e.statusUpdate)
        .map((e) => e.statusUpdate.status.state),
    ).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(seen[4].artifactUpdate.artifact.artifactId).toBe('out');
  });

  it('resubscribeTask: the current Task, then live updates from another agent, until completion', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(sendRequest('follow me')));
    await respond(task.id, { state: 'TASK_STATE_WORKING' });
    const seen: any[] = [];
    for await (const event of asAlice.resubscribeTask({ tenant: '', id: task.id })) {
      const json = StreamResponse.toJSON(event) as any;
      seen.push(json);
      if (json.task) setTimeout(() => void respond(task.id, { state: 'TASK_STATE_COMPLETED' }), 50);
    }
    expect(kinds(seen)).toEqual(['task', 'statusUpdate']);
    expect(seen[0].task.status.state).toBe('TASK_STATE_WORKING');
    expect(seen[1].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a cancel by the sender ends the stream of every subscriber', async () => {
    const asAlice = await sdkClient(bobBase(), alice.token);
    const task = wire(await asAlice.sendMessage(sendRequest('cancel while followed')));
    const asBob = await sdkClient(bobBase(), bob.token);
    const followers = [asAlice, asBob].map(async (client) => {
      const states: string[] = [];
      for await (const event of client.resubscribeTask({ tenant: '', id: task.id })) {
        const json = StreamResponse.toJSON(event) as any;
        states.push(json.task?.status.state ?? json.statusUpdate?.status.state);
      }
      return states;
    });
    await new Promise((r) => setTimeout(r, 100));
    await asAlice.cancelTask({ tenant: '', id: task.id, metadata: {} });
    const [a, b] = await Promise.all(followers);
    expect(a).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_CANCELED']);
    expect(b).toEqual(a);
  });
});

describe('SSE details', () => {
  it('carries the event sequence number as the SSE id and resumes after Last-Event-ID with no gap and no duplicate', async () => {
    const created = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'resume-1', role: 'ROLE_USER', parts: [{ text: 'resume' }] } },
      { token: alice.token },
    );
    const id = created.body.result.task.id;
    await respond(id, { state: 'TASK_STATE_WORKING' }); // seq 2
    await respond(id, { state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'progress' }] } }); // seq 3
    const first = await sse(bobBase(), 'SubscribeToTask', { id }, { token: alice.token, stopAfter: 1 });
    expect(first.events[0]!.id).toBe(3);
    expect(first.events[0]!.data).toMatchObject({ jsonrpc: '2.0', id: 9, result: { task: { id } } });

    await respond(id, { state: 'TASK_STATE_WORKING', artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }] }] }); // seq 4, 5
    await respond(id, { state: 'TASK_STATE_COMPLETED' }); // seq 6
    const resumed = await sse(bobBase(), 'SubscribeToTask', { id }, { token: alice.token, lastEventId: 3 });
    expect(resumed.events.map((e) => e.id)).toEqual([undefined, 4, 5, 6]); // the snapshot carries no id, so ids only rise
    expect(Object.keys(resumed.events[0]!.data.result)).toEqual(['task']);
    expect(resumed.events.slice(1).map((e) => Object.keys(e.data.result)[0])).toEqual([
      'artifactUpdate',
      'statusUpdate',
      'statusUpdate',
    ]);
    expect(resumed.events[3]!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses SubscribeToTask on a terminal task with -32004 as plain JSON, and on an unknown or invisible task with -32001', async () => {
    const created = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'term-1', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    );
    const id = created.body.result.task.id;
    await respond(id, { state: 'TASK_STATE_REJECTED' });
    const terminal = await sse(bobBase(), 'SubscribeToTask', { id }, { token: alice.token });
    expect(terminal.json.error.code).toBe(-32004);
    const invisible = await sse(bobBase(), 'SubscribeToTask', { id }, { token: carol.token });
    expect(invisible.json.error.code).toBe(-32001);
    const unknown = await sse(hub.url, 'SubscribeToTask', { id: 'nope' }, { token: alice.token });
    expect(unknown.json.error.code).toBe(-32001);
  });

  it('answers the 0.3 names in 0.3 shapes, with final on the last status update', async () => {
    const created = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'legacy-s', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    );
    const id = created.body.result.task.id;
    const stream = sse(bobBase(), 'tasks/resubscribe', { id }, { token: alice.token });
    await new Promise((r) => setTimeout(r, 100));
    await respond(id, { state: 'TASK_STATE_WORKING' });
    await respond(id, { state: 'TASK_STATE_COMPLETED' });
    const { events } = await stream;
    expect(events.map((e) => [e.data.result.kind, e.data.result.status?.state, e.data.result.final])).toEqual([
      ['task', 'submitted', undefined],
      ['status-update', 'working', false],
      ['status-update', 'completed', true],
    ]);
    const waiting = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'legacy-ir', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    );
    const irStream = sse(bobBase(), 'tasks/resubscribe', { id: waiting.body.result.task.id }, { token: alice.token });
    await new Promise((r) => setTimeout(r, 100));
    await respond(waiting.body.result.task.id, { state: 'TASK_STATE_INPUT_REQUIRED' });
    const ir = await irStream; // a 0.3 stream ends when the task waits on its client
    expect(ir.events.map((e) => [e.data.result.kind, e.data.result.status?.state, e.data.result.final])).toEqual([
      ['task', 'submitted', undefined],
      ['status-update', 'input-required', true],
    ]);
    const streamed = await sse(
      bobBase(),
      'message/stream',
      { message: { kind: 'message', messageId: 'legacy-s2', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
      { token: alice.token, stopAfter: 1 },
    );
    expect(streamed.events[0]!.data.result).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
  });

  it('one event written to many subscribers is framed for each: its own JSON-RPC id, version and binding', async () => {
    const created = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'shared-frame', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    );
    const id = created.body.result.task.id;
    const [one, two, legacy] = [
      sse(bobBase(), 'SubscribeToTask', { id }, { token: alice.token, rpcId: 1 }),
      sse(bobBase(), 'SubscribeToTask', { id }, { token: bob.token, rpcId: 'two' }),
      sse(bobBase(), 'tasks/resubscribe', { id }, { token: alice.token }),
    ];
    const restEvents = (async () => {
      const res = await fetch(`${bobBase()}tasks/${id}:subscribe`, {
        headers: { authorization: `Bearer ${alice.token}` },
      });
      const events: { id?: number; data: any }[] = [];
      for await (const block of sseBlocks(res.body!.getReader()))
        if (block.data !== undefined) events.push(block as any);
      return events;
    })();
    await new Promise((r) => setTimeout(r, 100));
    await respond(id, { state: 'TASK_STATE_COMPLETED' });
    const [a, b, c, d] = [(await one).events, (await two).events, (await legacy).events, await restEvents];
    expect(a[1]).toMatchObject({
      id: 2,
      data: { id: 1, result: { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } } },
    });
    expect(b[1]).toMatchObject({
      id: 2,
      data: { id: 'two', result: { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } } },
    });
    expect(c[1]).toMatchObject({ id: 2, data: { id: 9, result: { kind: 'status-update', final: true } } });
    expect(d[1]).toMatchObject({ id: 2, data: { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } } });
    expect(d[1]!.data.jsonrpc).toBeUndefined();
  });

  it('ends a stream when the token that opened it is rotated', async () => {
    const dan = await register(hub, 'dan-rotates');
    const created = await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'rot-1', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: dan.token },
    );
    const stream = sse(bobBase(), 'SubscribeToTask', { id: created.body.result.task.id }, { token: dan.token });
    await new Promise((r) => setTimeout(r, 100));
    await rest(hub, 'POST', 'api/agents/dan-rotates/token', { token: dan.token });
    await respond(created.body.result.task.id, {
      state: 'TASK_STATE_WORKING',
      message: { parts: [{ text: 'after rotation' }] },
    });
    const { events } = await stream; // ends without hanging
    expect(JSON.stringify(events)).not.toContain('after rotation');
  });

  it('the cards declare streaming', async () => {
    for (const path of ['.well-known/agent-card.json', 'agents/bob/.well-known/agent-card.json']) {
      const card = (await rest(hub, 'GET', path)).body;
      expect(card.capabilities.streaming).toBe(true);
    }
  });
});
