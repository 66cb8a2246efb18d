/**
 * Declaring work intents (the FireTrident way of working): an orchestrator declares at a space's
 * base with the official SDK client and a worker claims, progresses and lands over REST; twins
 * answer the intent they repeat; what makes no intent is refused; priorities are capped and
 * order the claimable pages. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { SendMessageRequest } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, rest, rpc, type Registered, type TestHub } from './helpers/hub.js';
import { declaration, startIntentsHub, type IntentsHub } from './helpers/intents.js';
import { openSse } from './helpers/nodes.js';
import { sdkClient, wire } from './helpers/sdk.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered, outsider: Registered;
let spaceUrl: IntentsHub['spaceUrl'], declare: IntentsHub['declare'];
let act: IntentsHub['act'], makeSpace: IntentsHub['makeSpace'];

beforeAll(async () => {
  ({ hub, owner, orch, worker, other, outsider, spaceUrl, declare, act, makeSpace } = await startIntentsHub());
});
afterAll(() => hub.destroy());

describe('declaring and working an intent', () => {
  it('declare → claim → progress → land, followed by a subscriber and read back with no token', async () => {
    const orchestrator = await sdkClient(spaceUrl('links'), orch.token);
    const sent = wire(
      await orchestrator.sendMessage(
        SendMessageRequest.fromJSON({
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [
              { text: 'Add rate limiting to /api/links\nAnonymous callers flood it.' },
              { data: { footprint: ['src/links/**'], acceptance: ['a 61st request gets 429'] } },
            ],
          },
          configuration: { returnImmediately: true },
        }),
      ),
    );
    expect(sent.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(sent.contextId).toBe('links');
    expect(sent.status.message.parts[0].text).toMatch(/is open in space links.*claimed/);
    expect(sent.metadata.muster).toMatchObject({
      kind: 'intent',
      space: 'links',
      title: 'Add rate limiting to /api/links',
      footprint: ['src/links/**'],
      priority: 1,
    });

    const stream = await openSse(spaceUrl('links'), 'SubscribeToTask', { id: sent.id }); // no token: spaces are public
    expect(stream.status).toBe(200);

    const claimable = await rest(hub, 'GET', 'api/spaces/links/intents?state=claimable');
    expect(claimable.body.data.map((i: any) => i.id)).toContain(sent.id);
    const claimed = await act(sent.id, 'claim', worker.token, { leaseSeconds: 60 });
    expect(claimed.status).toBe(200);
    expect(claimed.body.status.state).toBe('TASK_STATE_WORKING');
    expect(claimed.body.metadata.muster.worker).toBe('worker');
    const taken = await act(sent.id, 'claim', other.token);
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toContain('held by worker');
    expect((await act(sent.id, 'claim', outsider.token)).status).toBe(403);
    expect((await act(sent.id, 'progress', other.token, { message: 'me too' })).status).toBe(409);

    expect((await act(sent.id, 'heartbeat', worker.token, { leaseSeconds: 120 })).status).toBe(200);
    expect((await act(sent.id, 'progress', worker.token, { message: 'Limiter written; tests next.' })).status).toBe(
      200,
    );
    const landed = await act(sent.id, 'land', worker.token, {
      summary: 'Rate limited /api/links at 60 a minute.',
      commit: 'abc123',
      files: [{ path: 'src/links/limit.ts', why: 'the limiter' }],
    });
    expect(landed.status).toBe(200);
    expect(landed.body.status.state).toBe('TASK_STATE_COMPLETED');
    const landing = landed.body.artifacts.find((a: any) => a.name === 'Landing');
    expect(landing.parts[0].text).toBe('Rate limited /api/links at 60 a minute.');
    expect(landing.parts[1].data).toMatchObject({
      commit: 'abc123',
      files: [{ path: 'src/links/limit.ts', why: 'the limiter' }],
    });

    const events = (await stream.waitEnd()).map((e) => e.data);
    const states = events
      .map((e) => e.result?.statusUpdate?.status.state ?? e.result?.task?.status.state)
      .filter(Boolean);
    expect(states).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(events.some((e) => e.result?.artifactUpdate?.artifact.name === 'Landing')).toBe(true);

    const read = await rpc(spaceUrl('links'), 'GetTask', { id: sent.id });
    expect(read.body.result.status.state).toBe('TASK_STATE_COMPLETED');
    expect(read.body.result.history.map((m: any) => m.parts[0].text)).toContain('Limiter written; tests next.');
    const listed = await rpc(spaceUrl('links'), 'ListTasks', { status: 'completed' });
    expect(listed.body.result.tasks.map((t: any) => t.id)).toContain(sent.id);
    expect(listed.body.result.tasks[0].artifacts).toBeUndefined();
    const done = await rest(hub, 'GET', 'api/spaces/links/intents?state=completed');
    expect(done.body.data[0]).toMatchObject({ id: sent.id, worker: 'worker', state: 'TASK_STATE_COMPLETED' });
    expect((await act(sent.id, 'heartbeat', worker.token)).status).toBe(409);
  });

  it('a twin declares nothing and answers the intent it repeats; force declares it anyway', async () => {
    const first = await declare('links', 'Cache link previews\nThey are slow.', { footprint: ['src/previews/**'] });
    const twin = await declare('links', 'cache LINK previews!', { footprint: ['src/previews/render.ts'] });
    expect(twin.id).toBe(first.id);
    expect(twin.metadata.muster.duplicateOf).toBe(first.id);
    expect(twin.status.message.parts[0].text).toMatch(/^This repeats intent/);
    const elsewhere = await declare('links', 'Cache link previews', { footprint: ['docs/**'] });
    expect(elsewhere.id).not.toBe(first.id);
    const forced = await declare('links', 'Cache link previews', { footprint: ['src/previews/**'], force: true });
    expect(forced.id).not.toBe(first.id);
    expect(forced.metadata.muster.duplicateOf).toBeUndefined();
  });

  it('the same work declared twice at once opens one intent and answers it to both', async () => {
    const [a, b] = await Promise.all([
      declare('links', 'Shorten link ids', { footprint: ['src/ids/**', 'docs/ids.md'] }),
      declare('links', 'link ids: shorten', { footprint: ['docs/ids.md', './src/ids/**'] }),
    ]);
    expect(b.id).toBe(a.id);
    expect([a.metadata.muster.duplicateOf, b.metadata.muster.duplicateOf].filter(Boolean)).toEqual([a.id]);
  });

  it('twins by overlapping footprints declared at once open one intent: the twin check and the open are one step', async () => {
    const [a, b, c] = await Promise.all([
      declare('links', 'Expire stale links', { footprint: ['src/expiry/**'] }),
      declare('links', 'stale links: expire', { footprint: ['src/expiry/sweep.ts', 'docs/expiry.md'] }),
      declare('links', 'Expire stale links', { footprint: ['src/expiry'] }),
    ]);
    expect(new Set([a.id, b.id, c.id]).size).toBe(1);
    expect([a, b, c].filter((t) => t.metadata.muster.duplicateOf === undefined)).toHaveLength(1);
  });

  it('the same work declared again opens anew once its intent is withdrawn; a forced twin holds no open key', async () => {
    const first = await declare('links', 'Trim link slugs', { footprint: ['src/slugs/**'] });
    const forced = await declare('links', 'Trim link slugs', { footprint: ['src/slugs/**'], force: true });
    expect(forced.id).not.toBe(first.id);
    expect(
      (await rpc(spaceUrl('links'), 'CancelTask', { id: first.id }, { token: orch.token })).body.result.status.state,
    ).toBe('TASK_STATE_CANCELED');
    // The forced one is still open, so the check answers it; withdrawn too, the work's key is free and it opens again.
    expect((await declare('links', 'trim LINK slugs', { footprint: ['./src/slugs/**'] })).id).toBe(forced.id);
    await rpc(spaceUrl('links'), 'CancelTask', { id: forced.id }, { token: orch.token });
    const again = await declare('links', 'trim LINK slugs', { footprint: ['./src/slugs/**'] });
    expect([first.id, forced.id]).not.toContain(again.id);
    expect(again.metadata.muster.duplicateOf).toBeUndefined();
  });

  it('refuses, storing nothing, what makes no intent, and callers who may not declare', async () => {
    const url = spaceUrl('links');
    const before = (await rpc(url, 'ListTasks', {})).body.result.totalSize;
    const send = (message: Record<string, unknown>, token: string | null = orch.token) =>
      rpc(
        url,
        'SendMessage',
        { message: { messageId: randomUUID(), role: 'ROLE_USER', ...message } },
        token ? { token } : {},
      );
    const noText = await send({ parts: [{ data: { footprint: ['a'] } }] });
    expect(noText.body.error.code).toBe(-32602);
    expect(noText.body.error.message).toMatch(/text part/);
    const noFootprint = await send({ parts: [{ text: 'Do it' }] });
    expect(noFootprint.body.error.message).toMatch(/footprint/);
    const emptyFootprint = await send({ parts: [{ text: 'Do it' }, { data: { footprint: [] } }] });
    expect(emptyFootprint.body.error.code).toBe(-32602);
    const file = await send({
      parts: [
        { text: 'Do it' },
        { url: 'https://example.com/x.txt', mediaType: 'text/plain' },
        { data: { footprint: ['a'] } },
      ],
    });
    expect(file.body.error.message).toMatch(/text and JSON data parts only/);
    const context = await send({ contextId: 'elsewhere', parts: [{ text: 'Do it' }, { data: { footprint: ['a'] } }] });
    expect(context.body.error.message).toMatch(/contextId "links"/);
    const priority = await send({ parts: [{ text: 'Do it' }, { data: { footprint: ['a'], priority: 11 } }] });
    expect(priority.body.error.data[1].fieldViolations[0].field).toBe('params.message.parts[1].data.priority');

    const open = await declare('links', 'Answer without a question', { footprint: ['x/**'] });
    const followUp = await send({ taskId: open.id, parts: [{ text: 'more detail' }] });
    expect(followUp.body.error.code).toBe(-32004);
    expect(followUp.body.error.message).toMatch(/INPUT_REQUIRED/);

    const anonymous = await send({ parts: [{ text: 'Do it' }, { data: { footprint: ['a'] } }] }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe(-32010);
    expect(JSON.stringify(anonymous.body.error)).toMatch(/need no token/);
    const asWorker = await send({ parts: [{ text: 'Do it' }, { data: { footprint: ['a'] } }] }, worker.token);
    expect(asWorker.status).toBe(403);
    expect(asWorker.body.error.code).toBe(-32011);
    expect(JSON.stringify(asWorker.body.error)).toMatch(/need no token/);
    expect(
      (
        await rpc(`${hub.url}spaces/nope/`, 'SendMessage', declaration('x', { footprint: ['a'] }), {
          token: orch.token,
        })
      ).status,
    ).toBe(404);
    expect((await rpc(url, 'ListTasks', {})).body.result.totalSize).toBe(before + 1);
  });

  it("caps an orchestrator's priority at the space's cap and says so; the owner and admin declare at any", async () => {
    const capped = await declare('links', 'Urgent thing', { footprint: ['u/**'], priority: 9 });
    expect(capped.metadata.muster.priority).toBe(1);
    expect(capped.status.message.parts[0].text).toMatch(/at priority 1 \(you asked for 9/);
    expect(
      (await rest(hub, 'PATCH', 'api/spaces/links', { token: owner.token, body: { orchestratorPriority: 5 } })).status,
    ).toBe(200);
    expect(
      (await declare('links', 'Urgent thing two', { footprint: ['u2/**'], priority: 9 })).metadata.muster.priority,
    ).toBe(5);
    const byOwner = await declare('links', 'Most urgent', { footprint: ['v/**'], priority: 10 }, owner.token);
    expect(byOwner.metadata.muster.priority).toBe(10);
    const byAdmin = await declare('links', 'Admin work', { footprint: ['w/**'], priority: 7 }, ADMIN_TOKEN);
    expect(byAdmin.metadata.muster.priority).toBe(7);
    const claimable = (await rest(hub, 'GET', 'api/spaces/links/intents?state=claimable&limit=50')).body.data;
    const priorities = claimable.map((i: any) => i.priority);
    expect(priorities).toEqual([...priorities].sort((a, b) => b - a));
    expect(claimable[0].id).toBe(byOwner.id);
    const page = await rest(hub, 'GET', 'api/spaces/links/intents?state=claimable&limit=1');
    const second = await rest(
      hub,
      'GET',
      `api/spaces/links/intents?state=claimable&limit=1&cursor=${page.body.cursor}`,
    );
    expect(second.body.data[0].id).toBe(claimable[1].id);
  });

  it('claimable pages: equal priorities oldest first; a cursor goes on after its last intent, also once that one is claimed', async () => {
    await makeSpace('queue');
    const ids: string[] = [];
    for (const [title, priority] of [
      ['First at three', 3],
      ['Only at one', 1],
      ['Second at three', 3],
      ['Only at two', 2],
    ] as const) {
      ids.push(
        (await declare('queue', title, { footprint: [`${title.replaceAll(' ', '-')}/**`], priority }, owner.token)).id,
      );
    }
    const [first3, only1, second3, only2] = ids;
    const page = async (cursor?: string) =>
      (await rest(hub, 'GET', `api/spaces/queue/intents?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
    const top = await page();
    expect(top.data.map((i: any) => i.id)).toEqual([first3, second3]);
    expect((await act(second3!, 'claim', worker.token)).status).toBe(200);
    const next = await page(top.cursor);
    expect(next.data.map((i: any) => i.id)).toEqual([only2, only1]);
    expect(next.hasMore).toBe(false);
    expect((await page()).data.map((i: any) => i.id)).toEqual([first3, only2]);
  });
});
