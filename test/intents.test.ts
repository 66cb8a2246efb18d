/**
 * Work intents end to end (the FireTrident way of working): an orchestrator declares at a
 * space's base with the official SDK client; workers claim, heartbeat, progress and land over
 * REST. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { SendMessageRequest } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { eventually, openSse, sleep } from './helpers/nodes.js';
import { sdkClient, wire } from './helpers/sdk.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered, outsider: Registered;
const admin = { token: ADMIN_TOKEN };

const declaration = (text: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }, { data }], ...extra },
  configuration: { returnImmediately: true },
});
const spaceUrl = (name: string) => `${hub.url}spaces/${name}/`;
const declare = async (space: string, text: string, data: Record<string, unknown>, token = orch.token) => {
  const res = await rpc(spaceUrl(space), 'SendMessage', declaration(text, data), { token });
  if (!res.body.result) throw new Error(JSON.stringify(res.body));
  return res.body.result.task;
};
const act = (id: string, action: string, token: string, body: unknown = {}) =>
  rest(hub, 'POST', `api/tasks/${id}/${action}`, { token, body });
const makeSpace = async (name: string, extra: Record<string, unknown> = {}) => {
  const made = await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name, ...extra } });
  expect(made.status).toBe(201);
  await rest(hub, 'PUT', `api/spaces/${name}/members/${orch.handle}`, {
    token: owner.token,
    body: { role: 'orchestrator' },
  });
  await rest(hub, 'PUT', `api/spaces/${name}/members/${worker.handle}`, {
    token: owner.token,
    body: { role: 'worker' },
  });
  await rest(hub, 'PUT', `api/spaces/${name}/members/${other.handle}`, {
    token: owner.token,
    body: { role: 'worker' },
  });
};

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_INTENT_WAIT_S: '3' });
  [owner, orch, worker, other, outsider] = await registerAll(hub, 'owner', 'orch', 'worker', 'other', 'outsider');
  await makeSpace('links', { description: 'The links service' });
});
afterAll(() => hub.destroy());

describe('spaces', () => {
  it('an agent makes a space it owns; names are checked; anyone reads it; only the owner or admin changes it', async () => {
    const made = await rest(hub, 'POST', 'api/spaces', {
      token: outsider.token,
      body: { name: 'outside-work', claim: 'open' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'outside-work',
      claim: 'open',
      owner: 'outsider',
      orchestratorPriority: 1,
      a2a: `${hub.url}spaces/outside-work/`,
    });
    expect((await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'outside-work' } })).status).toBe(
      409,
    );
    const bad = await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'Bad Name' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields[0].field).toBe('name');
    expect((await rest(hub, 'POST', 'api/spaces', { body: { name: 'no-token' } })).status).toBe(401);
    const byAdmin = await rest(hub, 'POST', 'api/spaces', { ...admin, body: { name: 'admins' } });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.owner).toBeUndefined();

    const read = await rest(hub, 'GET', 'api/spaces/links');
    expect(read.body).toMatchObject({ name: 'links', description: 'The links service', claim: 'members' });
    expect(read.body.members.map((m: any) => [m.handle, m.role])).toEqual([
      ['orch', 'orchestrator'],
      ['other', 'worker'],
      ['worker', 'worker'],
    ]);
    expect((await rest(hub, 'GET', 'api/spaces/nope')).status).toBe(404);
    const listed = await rest(hub, 'GET', 'api/spaces?limit=2');
    expect(listed.body.data.map((s: any) => s.name)).toEqual(['admins', 'links']);
    expect(listed.body.hasMore).toBe(true);
    const next = await rest(hub, 'GET', `api/spaces?limit=2&cursor=${listed.body.cursor}`);
    expect(next.body.data.map((s: any) => s.name)).toEqual(['outside-work']);

    expect(
      (await rest(hub, 'PATCH', 'api/spaces/outside-work', { token: owner.token, body: { description: 'mine now' } }))
        .status,
    ).toBe(403);
    const patched = await rest(hub, 'PATCH', 'api/spaces/outside-work', {
      token: outsider.token,
      body: { description: 'Work from outside', orchestratorPriority: 3 },
    });
    expect(patched.body).toMatchObject({ description: 'Work from outside', orchestratorPriority: 3 });
    expect((await rest(hub, 'PATCH', 'api/spaces/outside-work', { ...admin, body: { claim: 'maybe' } })).status).toBe(
      400,
    );
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/worker', {
          token: worker.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/worker', {
          token: outsider.token,
          body: { role: 'boss' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/ghost', {
          token: outsider.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/worker', {
          token: outsider.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await rest(hub, 'DELETE', 'api/spaces/outside-work/members/worker', { token: outsider.token })).status,
    ).toBe(204);
    expect(
      (await rest(hub, 'DELETE', 'api/spaces/outside-work/members/worker', { token: outsider.token })).status,
    ).toBe(404);
  });

  it("serves the space's card: its description, JSON-RPC for 1.0 and 0.3 and HTTP+JSON, the declare-intent skill, the bearer scheme", async () => {
    const card = (
      await rest(hub, 'GET', 'spaces/links/.well-known/agent-card.json', { headers: { 'a2a-version': '1.0' } })
    ).body;
    expect(card.name).toBe('links');
    expect(card.description).toBe('The links service');
    expect(card.supportedInterfaces.map((i: any) => [i.url, i.protocolVersion])).toEqual([
      [spaceUrl('links'), '1.0'],
      [spaceUrl('links'), '0.3'],
      [spaceUrl('links'), '1.0'],
    ]);
    expect(card.skills.map((s: any) => s.id)).toEqual(['declare-intent']);
    expect(card.skills[0].examples.length).toBeGreaterThan(0);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect((await rest(hub, 'GET', 'spaces/nope/.well-known/agent-card.json')).status).toBe(404);
  });
});

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

  it('a lease that runs out returns the intent to SUBMITTED once, and another worker claims it', async () => {
    const intent = await declare('links', 'Short lease work', { footprint: ['lease/**'] });
    expect((await act(intent.id, 'claim', worker.token, { leaseSeconds: 1 })).status).toBe(200);
    const reopened = await eventually('the lease to run out', async () => {
      const t = (await rpc(spaceUrl('links'), 'GetTask', { id: intent.id })).body.result;
      return t.status.state === 'TASK_STATE_SUBMITTED' ? t : undefined;
    });
    expect(reopened.status.message.parts[0].text).toMatch(/ran out/);
    expect(reopened.metadata.muster.worker).toBeUndefined();
    const late = await act(intent.id, 'heartbeat', worker.token);
    expect(late.status).toBe(409);
    const again = await act(intent.id, 'claim', other.token, { leaseSeconds: 60 });
    expect(again.body.metadata.muster.worker).toBe('other');
    await sleep(600); // the expired lease's work ran once: the new claim stands
    const held = (await rpc(spaceUrl('links'), 'GetTask', { id: intent.id })).body.result;
    expect(held.status.state).toBe('TASK_STATE_WORKING');
    expect(held.metadata.muster.worker).toBe('other');
  });

  it('withdrawing: cancel while held stops the worker; canceled answers as it is; landed cannot be canceled', async () => {
    const intent = await declare('links', 'Withdrawn work', { footprint: ['gone/**'] });
    await act(intent.id, 'claim', worker.token, { leaseSeconds: 60 });
    expect(
      (
        await rpc(
          spaceUrl('links'),
          'CancelTask',
          { id: intent.id, metadata: { reason: 'x' } },
          { token: worker.token },
        )
      ).body.error.code,
    ).toBe(-32011);
    const canceled = await rpc(
      spaceUrl('links'),
      'CancelTask',
      { id: intent.id, metadata: { reason: 'the plan changed' } },
      { token: orch.token },
    );
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    expect(canceled.body.result.status.message.parts[0].text).toContain('the plan changed');
    expect(canceled.body.result.metadata.muster.cancelReason).toBe('the plan changed');
    const beat = await act(intent.id, 'heartbeat', worker.token);
    expect(beat.status).toBe(409);
    expect(beat.body.error.message).toMatch(/withdrawn/);
    expect((await act(intent.id, 'land', worker.token, { summary: 'done anyway' })).status).toBe(409);
    const twice = await rpc(spaceUrl('links'), 'CancelTask', { id: intent.id }, { token: owner.token });
    expect(twice.body.result.status.state).toBe('TASK_STATE_CANCELED');

    const landedOne = await declare('links', 'Landed work', { footprint: ['landed/**'] });
    await act(landedOne.id, 'claim', worker.token);
    await act(landedOne.id, 'land', worker.token, { summary: 'Landed.' });
    const late = await rpc(spaceUrl('links'), 'CancelTask', { id: landedOne.id }, { token: orch.token });
    expect(late.body.error.code).toBe(-32002);
    expect(late.body.error.message).toContain('TASK_STATE_COMPLETED');
  });

  it('input-required: the worker asks, the declarer answers with the taskId, the work goes on with the lease kept', async () => {
    const intent = await declare('links', 'Ambiguous work', { footprint: ['amb/**'] });
    await act(intent.id, 'claim', worker.token, { leaseSeconds: 60 });
    const asked = await act(intent.id, 'input-required', worker.token, { message: 'Per caller or per address?' });
    expect(asked.body.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.body.status.message.parts[0].text).toBe('Per caller or per address?');
    const byOther = await rpc(
      spaceUrl('links'),
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: intent.id, parts: [{ text: 'per address' }] } },
      { token: other.token },
    );
    expect(byOther.body.error.code).toBe(-32011);
    const answered = await rpc(
      spaceUrl('links'),
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: intent.id, parts: [{ text: 'Per address.' }] },
        configuration: { returnImmediately: true },
      },
      { token: orch.token },
    );
    expect(answered.body.result.task.status.state).toBe('TASK_STATE_WORKING');
    expect(answered.body.result.task.metadata.muster.worker).toBe('worker');
    expect((await act(intent.id, 'progress', worker.token, { message: 'Going per address.' })).status).toBe(200);
  });

  it('a blocking SendMessage waits for the landing; one nobody lands answers as it stands when the wait runs out', async () => {
    const landing = (async () => {
      const id = await eventually(
        'the blocking intent to be declared',
        async () =>
          (await rest(hub, 'GET', 'api/spaces/links/intents?state=claimable&limit=50')).body.data.find(
            (i: any) => i.title === 'Blocking work',
          )?.id,
      );
      await act(id, 'claim', worker.token);
      await act(id, 'land', worker.token, { summary: 'Landed while you waited.' });
    })();
    const blocking = await rpc(
      spaceUrl('links'),
      'SendMessage',
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'Blocking work' }, { data: { footprint: ['block/**'] } }],
        },
      },
      { token: orch.token },
    );
    await landing;
    expect(blocking.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const started = Date.now();
    const waited = await rpc(
      spaceUrl('links'),
      'SendMessage',
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'Nobody takes this' }, { data: { footprint: ['none/**'] } }],
        },
      },
      { token: orch.token },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    expect(waited.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  });

  it('0.3 names answer in 0.3 shapes; message/send waits only when blocking is true', async () => {
    const url = spaceUrl('links');
    const sent = await rpc(
      url,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [
            { kind: 'text', text: 'Legacy work' },
            { kind: 'data', data: { footprint: ['legacy/**'] } },
          ],
        },
      },
      { token: orch.token },
    );
    expect(sent.body.result.kind).toBe('task');
    expect(sent.body.result.status.state).toBe('submitted');
    expect(sent.body.result.contextId).toBe('links');
    const read = await rpc(url, 'tasks/get', { id: sent.body.result.id });
    expect(read.body.result.status.state).toBe('submitted');
    await act(sent.body.result.id, 'claim', worker.token);
    const canceled = await rpc(url, 'tasks/cancel', { id: sent.body.result.id }, { token: orch.token });
    expect(canceled.body.result.status.state).toBe('canceled');

    // with blocking: true, the 0.3 send waits for the landing and answers it in 0.3 shapes
    const landing = (async () => {
      const id = await eventually(
        'the blocking 0.3 intent to be declared',
        async () =>
          (await rest(hub, 'GET', 'api/spaces/links/intents?state=claimable&limit=50')).body.data.find(
            (i: any) => i.title === 'Legacy blocking work',
          )?.id,
      );
      await act(id, 'claim', worker.token);
      await act(id, 'land', worker.token, { summary: 'Landed for the 0.3 caller.' });
    })();
    const blocked = await rpc(
      url,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [
            { kind: 'text', text: 'Legacy blocking work' },
            { kind: 'data', data: { footprint: ['legacy-block/**'] } },
          ],
        },
        configuration: { blocking: true },
      },
      { token: orch.token },
    );
    await landing;
    expect(blocked.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(blocked.body.result.artifacts[0]).toMatchObject({ name: 'Landing' });
  });

  it('claims racing for one intent: exactly one wins', async () => {
    const intent = await declare('links', 'Raced work', { footprint: ['race/**'] });
    const results = await Promise.all(
      [worker, other, worker, other, worker, other].map((w) => act(intent.id, 'claim', w.token)),
    );
    const winners = new Set(results.filter((r) => r.status === 200).map((r) => r.body.metadata.muster.worker));
    expect(winners.size).toBe(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409)).toBe(true);
  });
});
