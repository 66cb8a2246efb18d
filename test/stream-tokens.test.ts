/**
 * A stream lives as long as its own token, on every door. Rotating the token that opened a stream
 * ends that stream at once (JSON-RPC SSE, HTTP+JSON SSE, gRPC, the task wait GET /api/tasks/{id}/wait),
 * and a change made after the rotation does not reach it; a stream opened with another token on the
 * same task stays open and gets every change to the end. An operator's stream lives as long as the
 * operator's token, not its agent's, and the agent's as long as the agent's. On PostgreSQL, a token
 * notice announced again while the token is still live (the poll after a lost LISTEN connection)
 * ends no stream opened with it.
 */
import { StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcClient, restClient } from './helpers/bindings.js';
import {
  ADMIN_TOKEN,
  openStreams,
  register,
  rest,
  sendTask,
  startTestHub,
  type Registered,
  type TestHub,
} from './helpers/hub.js';
import { eventually, openSse, sleep, within } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const WORKING = 'TASK_STATE_WORKING';
const COMPLETED = 'TASK_STATE_COMPLETED';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_GRPC_PORT: '0' }); // gRPC on a free port too
  alice = await register(hub, 'alice', {}, ADMIN_TOKEN);
  bob = await register(hub, 'bob', {}, ADMIN_TOKEN);
});
afterAll(() => hub.destroy());

/** bob (the target) moves the task on, saying `text`. */
async function respond(id: string, state: string, text?: string): Promise<void> {
  const body = { state, ...(text ? { message: { parts: [{ text }] } } : {}) };
  expect((await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body })).status).toBe(200);
}

/** Rotates the tokens of `who` (an agent, or with `path` an operator) with `token`, and keeps the new one. */
async function rotate(who: Registered, path = `api/agents/${who.handle}/token`, token = who.token): Promise<void> {
  const res = await rest(hub, 'POST', path, { token });
  expect(res.status).toBe(200);
  who.token = res.body.token;
}

/** A task stream read in the background: each event as StreamResponse JSON, and its end. */
interface Follow {
  readonly events: any[];
  /** Resolves when the hub has ended the stream; rejects if it broke instead. */
  ended: Promise<void>;
  readonly done: boolean;
}
type Door = (token: string, id: string) => Promise<Follow>;

/** SubscribeToTask at bob's base as raw JSON-RPC SSE; resolves once the opening Task came (the hub holds the stream). */
const jsonRpc: Door = async (token, id) => {
  const sse = await openSse(bobBase(), 'SubscribeToTask', { id }, { token });
  await sse.waitFor(1);
  return {
    get events() {
      return sse.events.map((e) => e.data.result);
    },
    ended: sse.ended.then(() => {
      if (sse.error) throw sse.error;
    }),
    get done() {
      return sse.done;
    },
  };
};

/** SubscribeToTask through an official SDK client (HTTP+JSON or gRPC); resolves once the opening Task came. */
const sdk =
  (client: (base: string, token: string) => Promise<Client>): Door =>
  async (token, id) => {
    const stream = (await client(bobBase(), token)).resubscribeTask({ tenant: '', id });
    const events: any[] = [];
    let done = false;
    let opened = () => {};
    const first = new Promise<void>((resolve) => (opened = resolve));
    const ended = (async () => {
      for await (const event of stream) {
        events.push(StreamResponse.toJSON(event));
        opened();
      }
    })().finally(() => {
      done = true;
      opened();
    });
    await first;
    return {
      events,
      ended,
      get done() {
        return done;
      },
    };
  };

/** GET /api/tasks/{id}/wait for the next change (up to 30 s); resolves, with its answer to come, once the hub holds it. */
async function waiting(token: string, id: string): Promise<{ answer: Promise<{ status: number; body: any }> }> {
  const before = await openStreams(hub);
  const answer = rest(hub, 'GET', `api/tasks/${id}/wait?timeoutSeconds=30`, { token });
  await expect.poll(() => openStreams(hub), { timeout: 5_000 }).toBe(before + 1); // the wait is held
  return { answer };
}

const carries = (follow: Follow, text: string) => JSON.stringify(follow.events).includes(text);
const stateOf = (event: any): string => event.task?.status.state ?? event.statusUpdate?.status.state;
const heard = (follow: Follow, text: string) =>
  eventually(`the stream carries "${text}"`, async () => (carries(follow, text) ? true : undefined), 5_000);

/** The stream ends within 5 s (a stream that hangs fails here). */
const ends = (follow: Follow, what: string) => within(5_000, `${what} ends`, follow.ended);

describe('a stream opened with a token that is then rotated', () => {
  const doors: [string, Door][] = [
    ['JSON-RPC SSE', jsonRpc],
    ['HTTP+JSON SSE', sdk(restClient)],
    ['gRPC', sdk(grpcClient)],
  ];
  for (const [door, open] of doors) {
    it(`ends on ${door} with the opening Task alone, while bob's stream on the same task there gets the change made after the rotation and COMPLETED`, async () => {
      const id = await sendTask(hub, alice, 'bob', `followed over ${door}`);
      const hers = await open(alice.token, id);
      const his = await open(bob.token, id);
      await rotate(alice);
      await respond(id, WORKING, 'after the rotation');
      await ends(hers, `alice's stream over ${door}`);
      expect(hers.events.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED']);
      expect(carries(hers, 'after the rotation')).toBe(false);

      await heard(his, 'after the rotation');
      expect(his.done).toBe(false);
      await respond(id, COMPLETED, 'done');
      await ends(his, `bob's stream over ${door}`);
      expect(his.events.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED', WORKING, COMPLETED]);
    });
  }

  it("refuses alice's task wait at once with 401 (the task is not read with her old token), while bob's wait answers the change and his JSON-RPC stream gets it and COMPLETED", async () => {
    const id = await sendTask(hub, alice, 'bob', 'waited on');
    const his = await jsonRpc(bob.token, id);
    const began = (await rest(hub, 'GET', `api/tasks/${id}/wait?timeoutSeconds=0`, { token: bob.token })).body.lastSeq;
    const hers = await waiting(alice.token, id);
    const bobs = await waiting(bob.token, id);
    await rotate(alice);
    await respond(id, WORKING, 'after the rotation');

    const ended = await within(5_000, "alice's wait answers", hers.answer);
    expect(ended.status).toBe(401);
    expect(ended.body.error).toMatchObject({ code: 'UNAUTHENTICATED', hint: expect.any(String) });
    expect(JSON.stringify(ended.body)).not.toContain('after the rotation');

    const answered = await within(5_000, "bob's wait answers", bobs.answer);
    expect(answered.body).toMatchObject({ lastSeq: began + 1, changed: true, timedOut: false });
    expect(answered.body.task.status).toMatchObject({
      state: WORKING,
      message: { parts: [{ text: 'after the rotation' }] },
    });
    await heard(his, 'after the rotation');
    expect(his.done).toBe(false);
    await respond(id, COMPLETED);
    await ends(his, "bob's JSON-RPC stream");
    expect(his.events.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED', WORKING, COMPLETED]);
  });
});

describe("an operator's stream", () => {
  it("ends when the operator's token is rotated while its agent's stays open, and the agent's ends when the agent's token is rotated while the operator's new one stays open", async () => {
    const made = await rest(hub, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'olga' } });
    const olga: Registered = { handle: 'olga', token: made.body.token };
    const owned = await rest(hub, 'POST', 'api/agents', { token: olga.token, body: { handle: 'ann' } });
    expect(owned.body.operator).toBe('olga');
    const ann: Registered = { handle: 'ann', token: owned.body.token };
    const id = await sendTask(hub, ann, 'bob', 'ann asks bob');

    const olgas = await jsonRpc(olga.token, id);
    const anns = await jsonRpc(ann.token, id);
    await rotate(olga, 'api/operators/olga/token');
    await respond(id, WORKING, 'after olga rotated');
    await ends(olgas, "olga's stream");
    expect(carries(olgas, 'after olga rotated')).toBe(false);
    await heard(anns, 'after olga rotated');
    expect(anns.done).toBe(false);

    // olga follows again with her new token, and rotates ann's: the notice names ann, whose stream alone ends.
    const olgasNew = await jsonRpc(olga.token, id);
    await rotate(ann, 'api/agents/ann/token', olga.token);
    await respond(id, WORKING, 'after ann rotated');
    await ends(anns, "ann's stream");
    expect(carries(anns, 'after ann rotated')).toBe(false);
    await heard(olgasNew, 'after ann rotated');
    expect(olgasNew.done).toBe(false);
    await respond(id, COMPLETED);
    await ends(olgasNew, "olga's new stream");
    expect(olgasNew.events.map(stateOf)).toEqual([WORKING, WORKING, COMPLETED]);
  });
});

/**
 * Rotates alice's token and follows a new task on the four doors with the new one, again (up to three
 * times) until that took under 2 s: the cut must come within the 3 s the first poll after it looks
 * back on, for alice's tokens to be announced again. Streams of a try given up end with its token.
 */
async function followedRightAfterRotation() {
  for (let tries = 1; ; tries++) {
    await rotate(alice);
    const rotatedAt = Date.now();
    const id = await sendTask(hub, alice, 'bob', 'followed across a lost LISTEN connection');
    const hers = [
      await jsonRpc(alice.token, id),
      await sdk(restClient)(alice.token, id),
      await sdk(grpcClient)(alice.token, id),
    ];
    const wait = await waiting(alice.token, id);
    const tookMs = Date.now() - rotatedAt;
    if (tookMs < 2_000 || tries === 3) return { id, hers, wait, tookMs };
    for (const stream of hers) stream.ended.catch(() => {});
  }
}

describe.runIf(testPostgres)('a token notice announced again while the token is live (PostgreSQL)', () => {
  const listeners =
    "FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'muster-listen %'";

  it('ends none of the streams opened with the token, on any door: after a lost LISTEN connection they all get the next change and COMPLETED', async () => {
    const { id, hers, wait, tookMs } = await followedRightAfterRotation();
    expect(tookMs, 'the cut comes within the look-back, or nothing is announced again').toBeLessThan(2_000);
    const [cut] = await hub.db.rows(`SELECT pid, pg_terminate_backend(pid) AS ended ${listeners}`);
    expect(cut).toMatchObject({ ended: true });
    await eventually('the hub listens again', async () =>
      (await hub.db.rows(`SELECT pid ${listeners}`)).some((r) => r['pid'] !== cut!['pid']) ? true : undefined,
    );
    await sleep(500); // the polls' announcements heard (a stream they ended would end now)
    expect(hers.map((s) => s.done)).toEqual([false, false, false]);

    await respond(id, WORKING, 'after the cut');
    for (const stream of hers) await heard(stream, 'after the cut');
    const answered = await within(5_000, "alice's wait answers", wait.answer);
    expect(answered.body).toMatchObject({ changed: true, timedOut: false, task: { status: { state: WORKING } } });
    await respond(id, COMPLETED);
    for (const stream of hers) {
      await ends(stream, "alice's stream");
      expect(stream.events.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED', WORKING, COMPLETED]);
    }
  });
});
