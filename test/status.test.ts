/**
 * The hub's own facts for the web feed: GET /api/status (version, store, live nodes, public tasks
 * per hour), the intents a worker holds (GET /api/intents?worker=), and an operator's view of its
 * agents' boards. One hub on SQLite (or PostgreSQL under MUSTER_TEST_PG); two `muster serve`
 * nodes on one PostgreSQL database for the node list.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
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
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { dataParams, openData, reviewRequest } from './helpers/review.js';
import { testDialect } from './helpers/database.js';

const text = (t: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: t }] });
const total = (counts: number[]) => counts.reduce((a, b) => a + b, 0);

describe('one hub', () => {
  let hub: TestHub;
  let poster: Registered, bob: Registered, orch: Registered, worker: Registered, other: Registered;
  const status = async () => (await rest(hub, 'GET', 'api/status')).body;
  const held = (query: string, token?: string) => rest(hub, 'GET', `api/intents?${query}`, token ? { token } : {});
  const act = (id: string, action: string, token: string) =>
    rest(hub, 'POST', `api/tasks/${id}/${action}`, { token, body: {} });

  beforeAll(async () => {
    hub = await startTestHub();
    [poster, bob, orch, worker, other] = await registerAll(
      hub,
      'st-poster',
      'st-bob',
      'st-orch',
      'st-worker',
      'st-other',
    );
  });
  afterAll(() => hub.destroy());

  it('GET /api/status answers without a token: version, store, uptime, this node marked, 24 hourly counts', async () => {
    const res = await rest(hub, 'GET', 'api/status');
    expect(res.status).toBe(200);
    const health = (await rest(hub, 'GET', 'health')).body;
    expect(res.body).toMatchObject({ version: health.version, store: testDialect, tasksPerHour: { hours: 24 } });
    expect(res.body.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(res.body.tasksPerHour.counts).toHaveLength(24);
    expect(res.body.nodes).toHaveLength(1);
    const [node] = res.body.nodes;
    expect(node).toEqual({
      id: expect.any(String),
      version: health.version,
      startedAt: expect.any(String),
      lastSeenAt: expect.any(String),
      self: true,
    });
    expect(Date.parse(node.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(node.startedAt));
    expect((await rest(hub, 'GET', 'api/status', { token: 'not-a-token' })).status).toBe(401); // as on every route
  });

  it('tasksPerHour counts a public review task and not a private direct task', async () => {
    const before = (await status()).tasksPerHour.counts as number[];
    const direct = await rpc(
      `${hub.url}agents/st-bob/`,
      'SendMessage',
      { message: text('a private question') },
      { token: poster.token },
    );
    expect(direct.body.result.task.id).toBeDefined();
    const review = await rpc(
      hub.url,
      'SendMessage',
      dataParams(openData(reviewRequest(3_600_000, { question: 'Is this counted per hour?' }))),
      { token: poster.token },
    );
    expect(review.body.result?.task?.id, JSON.stringify(review.body)).toBeDefined();
    // The report's counts are kept a few seconds (hub/status.ts): read until they move.
    let after = before;
    for (let i = 0; i < 100 && total(after) === total(before); i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = (await status()).tasksPerHour.counts as number[];
    }
    expect(total(after) - total(before)).toBe(1);
    expect(after.at(-1)! - before.at(-1)!).toBe(1); // in the hour that ends now
    // The direct task is there for its parties, just not counted for anyone.
    expect((await rest(hub, 'GET', 'api/inbox', { token: bob.token })).body.data).toHaveLength(1);
  });

  it('GET /api/intents?worker=me lists exactly the intent the caller holds, in any space, and not once released', async () => {
    expect(
      (await rest(hub, 'POST', 'api/spaces', { token: orch.token, body: { name: 'st-space', claim: 'open' } })).status,
    ).toBe(201);
    const declare = async (title: string) => {
      const message = {
        ...text(title),
        parts: [{ text: title }, { data: { footprint: [`docs/${randomUUID()}.md`] } }],
      };
      const res = await rpc(
        `${hub.url}spaces/st-space/`,
        'SendMessage',
        { message, configuration: { returnImmediately: true } },
        { token: orch.token },
      );
      if (!res.body.result) throw new Error(JSON.stringify(res.body));
      return res.body.result.task.id as string;
    };
    const [claimed, left] = [await declare('Rotate the signing keys'), await declare('Write the status page')];
    expect((await held('worker=me', worker.token)).body).toEqual({ data: [], hasMore: false });
    expect((await act(claimed, 'claim', worker.token)).status).toBe(200);

    const mine = await held('worker=me', worker.token);
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((i: any) => i.id)).toEqual([claimed]);
    expect(mine.body.data[0]).toMatchObject({
      space: 'st-space',
      title: 'Rotate the signing keys',
      state: 'TASK_STATE_WORKING',
      worker: 'st-worker',
    });
    expect(mine.body.hasMore).toBe(false);
    expect((await held('worker=st-worker', worker.token)).body.data.map((i: any) => i.id)).toEqual([claimed]);
    expect((await held('worker=st-worker', ADMIN_TOKEN)).body.data.map((i: any) => i.id)).toEqual([claimed]);
    expect((await held('worker=me', other.token)).body.data).toEqual([]);

    const refused = await held('worker=st-worker', other.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', hint: expect.stringContaining('worker=me') });
    expect((await held('worker=me', ADMIN_TOKEN)).status).toBe(403);
    expect((await held('worker=me')).status).toBe(401);
    const missing = await held('', worker.token);
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.error)).toContain('worker');

    // Paged like a space's list: a second held intent comes on the next page.
    const third = await declare('Trim the logs');
    expect((await act(third, 'claim', worker.token)).status).toBe(200);
    const first = await held('worker=me&limit=1', worker.token);
    expect(first.body).toMatchObject({ data: [{ id: third }], hasMore: true, cursor: expect.any(String) });
    const second = await held(`worker=me&limit=1&cursor=${encodeURIComponent(first.body.cursor)}`, worker.token);
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: claimed })], hasMore: false });
    expect((await act(third, 'release', worker.token)).status).toBe(200);

    // An operator names its own agents, and no others.
    const operator = (await rest(hub, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'st-work-op' } }))
      .body.token as string;
    const ownedWorker = await register(hub, 'st-owned-worker', {}, operator);
    expect((await act(left, 'claim', ownedWorker.token)).status).toBe(200);
    expect((await held('worker=st-owned-worker', operator)).body.data.map((i: any) => i.id)).toEqual([left]);
    expect((await held('worker=st-worker', operator)).status).toBe(403);
    expect((await held('worker=me', operator)).status).toBe(403);

    expect((await act(claimed, 'release', worker.token)).status).toBe(200);
    expect((await held('worker=me', worker.token)).body.data).toEqual([]);
    expect((await held('worker=st-worker', ADMIN_TOKEN)).body.data).toEqual([]);
  });

  it('GET /api/boards with an operator token shows the boards of its agents, and not those of other agents', async () => {
    const operator = (await rest(hub, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'st-op' } })).body
      .token as string;
    const owned = await register(hub, 'st-owned', {}, operator);
    const board = async (who: Registered, title: string, extra: Record<string, unknown> = {}) => {
      const res = await rpc(
        `${hub.url}memory/`,
        'SendMessage',
        {
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [{ data: { skill: 'board.create', args: { title, cards: ['a card'], ...extra } } }],
          },
        },
        { token: who.token },
      );
      return res.body.result.task.metadata.muster.board as string;
    };
    const ownedPrivate = await board(owned, 'Owned private');
    const sharedWithOwned = await board(other, 'Shared with owned', { visibility: 'shared', sharedWith: ['st-owned'] });
    const othersPrivate = await board(other, 'Other private');
    const ownedPublic = await board(owned, 'Owned public', { visibility: 'public' });

    const listed = await rest(hub, 'GET', 'api/boards?limit=50', { token: operator });
    expect(listed.status).toBe(200);
    const ids = listed.body.data.map((b: any) => b.id);
    expect(ids).toEqual(expect.arrayContaining([ownedPrivate, sharedWithOwned, ownedPublic]));
    expect(ids).not.toContain(othersPrivate);
    expect((await rest(hub, 'GET', `api/boards/${ownedPrivate}`, { token: operator })).status).toBe(200);
    expect((await rest(hub, 'GET', `api/boards/${othersPrivate}`, { token: operator })).status).toBe(404);
    // Without a token, only the public one of these.
    const anonymous = (await rest(hub, 'GET', 'api/boards?limit=50')).body.data.map((b: any) => b.id);
    expect(anonymous).toContain(ownedPublic);
    expect(anonymous).not.toContain(ownedPrivate);
  });
});

describe.skipIf(!testPostgres)('two nodes on one PostgreSQL database', () => {
  const { nodes } = clusterOnPostgres('status_nodes', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: 'status-admin' },
    startMs: 30_000,
  }));

  it('GET /api/status on either node lists both, each marking itself; a node that stops is gone from the list', async () => {
    const [A, B] = nodes as [NodeProcess, NodeProcess];
    const [onA, onB] = [(await rest(A, 'GET', 'api/status')).body, (await rest(B, 'GET', 'api/status')).body];
    expect(onA.store).toBe('postgres');
    expect(onA.nodes).toHaveLength(2);
    expect(onB.nodes.map((n: any) => n.id)).toEqual(onA.nodes.map((n: any) => n.id));
    const selfA = onA.nodes.filter((n: any) => n.self);
    const selfB = onB.nodes.filter((n: any) => n.self);
    expect(selfA).toHaveLength(1);
    expect(selfB).toHaveLength(1);
    expect(selfA[0].id).not.toBe(selfB[0].id);

    expect(await B.stop('SIGTERM')).toBe(0);
    const after = (await rest(A, 'GET', 'api/status')).body.nodes;
    expect(after.map((n: any) => n.id)).toEqual([selfA[0].id]);
  });
});
