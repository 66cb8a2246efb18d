/**
 * A blocking declaration whose caller hangs up: the hub must stop waiting for the intent to end
 * (MUSTER_INTENT_WAIT_S is set to its 300 s maximum here, so a wait that goes on is plain to see).
 *
 * A real hub on 127.0.0.1 and a real HTTP client (node:http, one socket of its own) that sends
 * the blocking SendMessage and destroys its connection before the intent ends. The HTTP side is
 * observed over GET /metrics (the request counted `aborted`); the wait itself is observed in the
 * hub's own objects, which run in this process: the hub's Wakeups (its `size`, the subscribers
 * following a task's log, kept "for health and tests") and Following.waitToSettle, the blocking
 * wait, whose `until` signal must fire for the caller's leaving (an AbortError, not the
 * TimeoutError of the wait running out). Spies only watch; nothing of the hub is replaced, except
 * that one test holds a space read until the caller has gone.
 * Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Wakeups } from '../src/events/wakeups.js';
import { Following } from '../src/hub/following.js';
import { Spaces } from '../src/hub/spaces.js';
import { ADMIN_TOKEN, registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { eventually, within } from './helpers/nodes.js';

const watch = vi.spyOn(Wakeups.prototype, 'watch');
const waits = vi.spyOn(Following.prototype, 'waitToSettle');

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered;
const spaceUrl = () => `${hub.url}spaces/links/`;

/** The subscribers the hub's Wakeups holds (0 before anything was ever followed). */
const following = () => (watch.mock.contexts[0] as Wakeups | undefined)?.size ?? 0;

/** A blocking declaration on a socket of its own, so the test can cut exactly that connection. */
function blockingDeclaration(title: string): { req: ClientRequest; answer: Promise<{ status: number; body: any }> } {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text: title }, { data: { footprint: [`${randomUUID()}/**`] } }],
      },
    },
  });
  const req = request(spaceUrl(), {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${orch.token}`,
      'content-length': Buffer.byteLength(body),
    },
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.end(body);
  return { req, answer };
}

/** The id of the open intent titled `title` (once its declaration is written). */
const intentId = (title: string) =>
  eventually(
    `intent "${title}" to be declared`,
    async () =>
      (await rest(hub, 'GET', 'api/spaces/links/intents?state=claimable&limit=50')).body.data.find(
        (i: any) => i.title === title,
      )?.id as string | undefined,
  );

/** The hub's blocking wait on `taskId`: the signal it waits until, and its end. */
const waitOn = (taskId: string) =>
  eventually(`the hub to wait on ${taskId}`, async () => {
    const i = waits.mock.calls.findIndex(([id]) => id === taskId);
    return i < 0 ? undefined : { until: waits.mock.calls[i]![1], ended: waits.mock.results[i]!.value as Promise<void> };
  });

const stateOf = async (id: string): Promise<string> =>
  (await rpc(spaceUrl(), 'GetTask', { id })).body.result.status.state;

/** SendMessage requests the hub counted as left by their client. */
async function abortedSends(): Promise<number> {
  const res = await fetch(`${hub.url}metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const line = (await res.text())
    .split('\n')
    .find(
      (l) =>
        l.startsWith('muster_requests_total{') && l.includes('method="SendMessage"') && l.includes('status="aborted"'),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

const land = async (id: string) => {
  expect((await rest(hub, 'POST', `api/tasks/${id}/claim`, { token: worker.token, body: {} })).status).toBe(200);
  expect(
    (await rest(hub, 'POST', `api/tasks/${id}/land`, { token: worker.token, body: { summary: 'Landed.' } })).status,
  ).toBe(200);
};

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_INTENT_WAIT_S: '300' });
  [owner, orch, worker] = await registerAll(hub, 'owner', 'orch', 'worker');
  expect((await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'links' } })).status).toBe(201);
  await rest(hub, 'PUT', `api/spaces/links/members/${orch.handle}`, {
    token: owner.token,
    body: { role: 'orchestrator' },
  });
  await rest(hub, 'PUT', `api/spaces/links/members/${worker.handle}`, { token: owner.token, body: { role: 'worker' } });
});
afterAll(async () => {
  await hub?.destroy();
  vi.restoreAllMocks();
});

describe('a blocking declaration whose caller disconnects', () => {
  it('stops waiting when the caller hangs up mid-wait; a caller still connected keeps waiting and gets the landing', async () => {
    expect(following()).toBe(0);
    const stays = blockingDeclaration('Stays connected');
    const stayingId = await intentId('Stays connected');
    const staying = await waitOn(stayingId);
    const leaves = blockingDeclaration('Hangs up');
    const leavingId = await intentId('Hangs up');
    const leaving = await waitOn(leavingId);
    // Both waits follow their intent's log: the caller leaves only once the hub is waiting.
    await eventually('both waits to follow their intents', async () => (following() === 2 ? true : undefined));
    const abortedBefore = await abortedSends();
    const cut = leaves.answer.then(
      () => 'answered',
      (e: Error) => e.message,
    );

    leaves.req.destroy();

    expect(await cut).not.toBe('answered');
    await within(10_000, 'the hub to stop waiting for the caller that left', leaving.ended);
    expect(leaving.until.aborted).toBe(true);
    expect((leaving.until.reason as DOMException).name).toBe('AbortError'); // the caller's leaving, not the wait running out
    expect(following()).toBe(1); // the connected caller's wait, only
    expect(staying.until.aborted).toBe(false);
    expect(await stateOf(leavingId)).toBe('TASK_STATE_SUBMITTED'); // it stopped before the intent ended
    expect(await abortedSends()).toBe(abortedBefore + 1);

    // The intent the caller left lands later: the hub takes it, and nobody is waiting on it.
    await land(leavingId);
    expect(await stateOf(leavingId)).toBe('TASK_STATE_COMPLETED');
    expect(following()).toBe(1);
    expect(staying.until.aborted).toBe(false);

    // The connected caller still waits, and its answer is the landing.
    await land(stayingId);
    const answered = await stays.answer;
    expect(answered.status).toBe(200);
    expect(answered.body.result.task.id).toBe(stayingId);
    expect(answered.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await staying.ended;
    expect(following()).toBe(0);
  });

  // The door listens for the answer's 'close' only once a send asks for its end signal, which a
  // blocking send does after its write: a caller gone by then must still end the wait. The space
  // read is held until the hub has seen the caller go, so the race is not left to timing.
  it('stops waiting when the caller hung up before the hub began to wait', async () => {
    const standing = Spaces.prototype.standing;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const held = new Promise<void>((r) => (reached = r));
    const hold = vi.spyOn(Spaces.prototype, 'standing').mockImplementationOnce(async function (this: Spaces, ...args) {
      reached();
      await gate;
      return standing.apply(this, args);
    });
    const abortedBefore = await abortedSends();
    const leaves = blockingDeclaration('Hung up early');
    const cut = leaves.answer.then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await held; // the hub is reading the space, before writing the intent and before it waits

    leaves.req.destroy();
    expect(await cut).not.toBe('answered');
    await eventually('the hub to see the caller go', async () =>
      (await abortedSends()) === abortedBefore + 1 ? true : undefined,
    );
    release();
    hold.mockRestore();

    const id = await intentId('Hung up early');
    const wait = await waitOn(id);
    // Landing ends any wait still going; what counts is why the wait had ended.
    await land(id);
    await wait.ended;
    expect(following()).toBe(0);
    expect(wait.until.aborted).toBe(true);
    expect((wait.until.reason as DOMException).name).toBe('AbortError');
  });
});
