/**
 * The live inbox (GET /api/inbox/stream) on one hub (SQLite, or PostgreSQL under MUSTER_TEST_PG),
 * and on two `muster serve` nodes of one PostgreSQL database: open tasks first, live events,
 * resume with Last-Event-ID with nothing lost or repeated, on the other node too; who may open it;
 * a rotated token closes it; presence while it is open.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { openInbox } from './helpers/inbox.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import pg from 'pg';

const send = async (
  base: { url: string },
  to: string,
  from: Registered,
  text: string,
  extra: { taskId?: string; accepts?: string[] } = {},
) => {
  const message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(extra.taskId ? { taskId: extra.taskId } : {}),
  };
  const configuration = { returnImmediately: true, ...(extra.accepts ? { acceptedOutputModes: extra.accepts } : {}) };
  const res = await rpc(`${base.url}agents/${to}/`, 'SendMessage', { message, configuration }, { token: from.token });
  if (!res.body.result) throw new Error(JSON.stringify(res.body));
  return res.body.result.task as { id: string };
};

describe('the live inbox on one hub', () => {
  let hub: TestHub;
  let alice: Registered, bob: Registered;
  beforeAll(async () => {
    hub = await startTestHub();
    alice = await register(hub, 'alice', {}, ADMIN_TOKEN);
    bob = await register(hub, 'bob', {}, ADMIN_TOKEN);
  });
  afterAll(() => hub.destroy());

  it('gives the open tasks first (not the finished ones, nor those waiting on the sender), then live tasks, follow-ups (each with what its sender accepts back) and cancels', async () => {
    const open = await send(hub, 'bob', alice, 'first, still open');
    const done = await send(hub, 'bob', alice, 'second, answered');
    await rest(hub, 'POST', `api/tasks/${done.id}/respond`, {
      token: bob.token,
      body: { state: 'completed', message: { parts: [{ text: 'ok' }] } },
    });
    const asking = await send(hub, 'bob', alice, 'third, waiting on alice');
    await rest(hub, 'POST', `api/tasks/${asking.id}/respond`, {
      token: bob.token,
      body: { state: 'input-required', message: { parts: [{ text: 'which?' }] } },
    });

    const inbox = await openInbox(hub.url, bob.token);
    expect(inbox.status).toBe(200);
    const [first] = await inbox.take(1);
    expect(first!.data.kind).toBe('task');
    expect(first!.data.task.id).toBe(open.id);
    expect(first!.data.task.history[0].parts[0].text).toBe('first, still open');
    expect(first!.id).toMatch(/^\d+\/\d+$/);

    const live = await send(hub, 'bob', alice, 'live one', { accepts: ['text/plain'] });
    await send(hub, 'bob', alice, 'more please', { taskId: asking.id, accepts: ['application/json'] });
    await rest(hub, 'POST', `api/tasks/${open.id}/cancel`, {
      token: alice.token,
      body: { reason: 'no longer needed' },
    });
    const [task, message, cancel] = await inbox.take(3);
    expect(task!.data).toMatchObject({
      kind: 'task',
      task: { id: live.id, status: { state: 'TASK_STATE_SUBMITTED' } },
      acceptedOutputModes: ['text/plain'],
    });
    expect(message!.data).toMatchObject({
      kind: 'message',
      taskId: asking.id,
      message: { role: 'ROLE_USER', parts: [{ text: 'more please' }] },
      acceptedOutputModes: ['application/json'],
    });
    expect(cancel!.data).toEqual({ kind: 'cancel', taskId: open.id, reason: 'no longer needed' });
    expect([task, message, cancel].map((b) => Number(b!.id))).toEqual([1, 2, 3].map((i) => Number(task!.id) + i - 1));
    // bob's own answers are not fed back to him
    await rest(hub, 'POST', `api/tasks/${live.id}/respond`, { token: bob.token, body: { state: 'working' } });
    expect(await inbox.take(1, 500)).toEqual([]);
    inbox.close();
  });

  it('resumes after a dropped connection with Last-Event-ID: each event once, in order', async () => {
    const inbox = await openInbox(hub.url, bob.token);
    await inbox.take(10, 800); // the replay of what is open
    const before = await send(hub, 'bob', alice, 'before the drop');
    expect((await inbox.take(1))[0]!.data.task.id).toBe(before.id);
    const resumeFrom = inbox.lastId!;
    inbox.close();
    const sent = [];
    for (const text of ['away 1', 'away 2', 'away 3']) sent.push((await send(hub, 'bob', alice, text)).id);
    const again = await openInbox(hub.url, bob.token, resumeFrom);
    const got = await again.take(3);
    expect(got.map((b) => b.data.task.id)).toEqual(sent);
    expect(await again.take(1, 500)).toEqual([]); // nothing more, nothing twice
    again.close();
  });

  it("resumes in the middle of the open tasks' replay without repeating one", async () => {
    const inbox = await openInbox(hub.url, bob.token);
    const replay = await inbox.take(10, 800);
    expect(replay.length).toBeGreaterThanOrEqual(2);
    inbox.close();
    const resumed = await openInbox(hub.url, bob.token, replay[0]!.id);
    const rest2 = await resumed.take(10, 800);
    expect(rest2.map((b) => b.id)).toEqual(replay.slice(1).map((b) => b.id));
    resumed.close();
  });

  it("is the agent's own: no token 401, the admin 403, a Last-Event-ID it never sent 400", async () => {
    expect((await openInbox(hub.url, undefined)).status).toBe(401);
    const admin = await openInbox(hub.url, ADMIN_TOKEN);
    expect(admin.status).toBe(403);
    expect(admin.body.error).toBeDefined();
    const bad = await openInbox(hub.url, bob.token, 'yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBeTruthy();
    // An id past the log's end was never sent either: taken, it would skip the events up to it.
    for (const past of ['999999', '999999/999999']) {
      const ahead = await openInbox(hub.url, bob.token, past);
      expect(ahead.status).toBe(400);
      expect(ahead.body.error.message).toContain('past the last event of this inbox');
    }
  });

  it('marks the agent present while a stream is open, and closes it when its token is rotated', async () => {
    const carol = await register(hub, 'carol', {}, ADMIN_TOKEN);
    const present = async () =>
      (await hub.db.rows('SELECT holder FROM inbox_presence WHERE handle = ? AND until > ?', 'carol', Date.now()))
        .length;
    expect(await present()).toBe(0);
    const inbox = await openInbox(hub.url, carol.token);
    await inbox.take(1, 300);
    expect(await present()).toBe(1);
    const rotated = await rest(hub, 'POST', 'api/agents/carol/token', { token: carol.token });
    expect(rotated.status).toBe(200);
    await inbox.ended; // the server ended the stream
    await new Promise((r) => setTimeout(r, 100));
    expect(await present()).toBe(0);
  });
});

describe.skipIf(!testPostgres)('the live inbox on two nodes of one PostgreSQL database', () => {
  const admin = 'inbox-nodes-admin';
  const cluster = clusterOnPostgres('inbox_stream_nodes', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: admin },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess;
  let alice: Registered, bob: Registered;
  let observer: pg.Client;
  /** Whether one of the agent's presence leases has not run out, by the database's clock. */
  const listening = async (handle: string) =>
    (await observer.query('SELECT 1 FROM inbox_presence WHERE handle = $1 AND until > muster_now_ms()', [handle]))
      .rowCount! > 0;
  beforeAll(async () => {
    [A, B] = cluster.nodes as [NodeProcess, NodeProcess];
    alice = await register(A, 'alice', {}, admin);
    bob = await register(B, 'bob', {}, admin);
    // A third connection to the database, to ask whether bob is listening.
    observer = new pg.Client({ connectionString: testPostgresUrl(A) });
    await observer.connect();
  });
  afterAll(() => observer?.end());

  it('drops on node A, tasks arrive through both, resumes on node B: each exactly once; presence follows', async () => {
    expect(await listening('bob')).toBe(false);
    const early = await send(A, 'bob', alice, 'waiting when bob comes');
    const onA = await openInbox(A.url, bob.token);
    const [replayed] = await onA.take(1);
    expect(replayed!.data.task.id).toBe(early.id);
    expect(await listening('bob')).toBe(true);
    const live = await send(B, 'bob', alice, 'live through B');
    expect((await onA.take(1))[0]!.data.task.id).toBe(live.id); // written through B, heard on A
    const resumeFrom = onA.lastId!;
    onA.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(await listening('bob')).toBe(false);

    const away = [(await send(A, 'bob', alice, 'away via A')).id, (await send(B, 'bob', alice, 'away via B')).id];
    await send(A, 'bob', alice, 'a follow-up while away', { taskId: early.id });
    const onB = await openInbox(B.url, bob.token, resumeFrom);
    const got = await onB.take(3);
    expect(got.map((b) => b.data.kind)).toEqual(['task', 'task', 'message']);
    expect(got.slice(0, 2).map((b) => b.data.task.id)).toEqual(away);
    expect(got[2]!.data.taskId).toBe(early.id);
    const after = await send(A, 'bob', alice, 'after the resume');
    expect((await onB.take(1))[0]!.data.task.id).toBe(after.id);
    expect(await onB.take(1, 700)).toEqual([]);
    onB.close();
  });

  it('gives a first listener on node B each task once while tasks pour in through node A', async () => {
    const dave = await register(A, 'dave', {}, admin);
    const before = await Promise.all(Array.from({ length: 6 }, (_, i) => send(A, 'dave', alice, `before ${i}`)));
    const during: string[] = []; // at most 20, under the pair's limit of 30 a minute
    let pouring = true;
    const pour = (async () => {
      for (let i = 0; pouring && i < 10; i++)
        during.push(
          ...(await Promise.all([send(A, 'dave', alice, `during ${i}a`), send(A, 'dave', alice, `during ${i}b`)])).map(
            (t) => t.id,
          ),
        );
    })();
    await new Promise((r) => setTimeout(r, 50));
    const inbox = await openInbox(B.url, dave.token); // dave's first listen: its log begins while writes run
    await new Promise((r) => setTimeout(r, 300));
    pouring = false;
    await pour;
    const all = [...before.map((t) => t.id), ...during];
    expect(during.length).toBeGreaterThan(0);
    const got = await inbox.take(all.length, 10_000);
    expect(got.map((b) => b.data.task.id).sort()).toEqual(all.sort());
    expect(await inbox.take(1, 500)).toEqual([]);
    inbox.close();
  });

  it('numbers tasks sent at once through both nodes without a gap, and delivers each once', async () => {
    const carol = await register(A, 'carol', {}, admin);
    const inbox = await openInbox(A.url, carol.token);
    await inbox.take(1, 300); // nothing open yet
    const sent = await Promise.all(
      Array.from({ length: 24 }, (_, i) => send(i % 2 ? B : A, 'carol', alice, `burst ${i}`)),
    );
    const got = await inbox.take(24, 10_000);
    expect(got.map((b) => b.data.task.id).sort()).toEqual(sent.map((t) => t.id).sort());
    const ids = got.map((b) => Number(b.id));
    expect(ids).toEqual(Array.from({ length: 24 }, (_, i) => ids[0]! + i));
    expect(await inbox.take(1, 500)).toEqual([]);
    inbox.close();
  });
});

/** The database URL a node was started on (its --db argument). */
function testPostgresUrl(node: NodeProcess): string {
  const args = node.child.spawnargs;
  return args[args.indexOf('--db') + 1]!;
}
