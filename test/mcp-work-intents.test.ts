/**
 * The MCP door's work-intent tools (issue 15) with the official MCP client: a whole intent flow
 * (declare, claim, heartbeat, progress, ask, land) over stdio (`muster mcp`) and Streamable HTTP,
 * checked through A2A with the official SDK client, and the refusals as tool errors with the hub's
 * code and hint. On SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rest, type Registered, startTestHub, type TestHub } from './helpers/hub.js';
import { callTool, mcpConnections, toolNames, type McpConnection, type McpTransportName } from './helpers/mcp.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered, bob: Registered;
const { connect, closeAll } = mcpConnections(() => hub);

beforeAll(async () => {
  hub = await startTestHub();
  [owner, orch, worker, other, bob] = await registerAll(hub, 'owner', 'orch', 'worker', 'other', 'bob');
  expect(
    (await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'links', orchestratorPriority: 5 } }))
      .status,
  ).toBe(201);
  for (const [who, role] of [
    [orch, 'orchestrator'],
    [worker, 'worker'],
    [other, 'worker'],
  ] as const) {
    expect(
      (await rest(hub, 'PUT', `api/spaces/links/members/${who.handle}`, { token: owner.token, body: { role } })).status,
    ).toBe(200);
  }
});
afterAll(async () => {
  await closeAll();
  await hub?.destroy();
});

describe.each<McpTransportName>(['stdio', 'http'])('a work intent through MCP over %s', (transport) => {
  let asOrch: McpConnection, asWorker: McpConnection, asOther: McpConnection, anonymous: McpConnection;
  beforeAll(async () => {
    [asOrch, asWorker, asOther, anonymous] = await Promise.all([
      connect(transport, orch),
      connect(transport, worker),
      connect(transport, other),
      connect(transport),
    ]);
  });
  afterAll(async () => {
    await Promise.all([asOrch, asWorker, asOther, anonymous].map((c) => c?.close()));
  });

  it('declare, list, claim, heartbeat, progress, ask (answered over A2A), land: the same intent as A2A reads it', async () => {
    const title = `Rate limit /api/links (${transport})`;
    const declared = await callTool(asOrch.client, 'muster_intent_declare', {
      space: 'links',
      title,
      why: 'Anonymous callers flood it.',
      footprint: ['src/links/**'],
      acceptance: ['a 61st request gets 429'],
      priority: 4,
    });
    expect(declared.isError).toBe(false);
    expect(declared.structured.state).toBe('TASK_STATE_SUBMITTED');
    expect(declared.structured.intent).toMatchObject({ space: 'links', title, priority: 4 });
    expect(declared.structured.next).toContain('muster_wait_task');
    const id: string = declared.structured.task.id;

    // Anyone may read a space: the listing is public, the worker's tools are not.
    const open = await toolNames(anonymous.client);
    expect(open).toContain('muster_intents');
    expect(open).not.toContain('muster_intent_claim');
    const listed = await callTool(anonymous.client, 'muster_intents', { space: 'links' });
    expect(listed.isError).toBe(false);
    expect(listed.structured.items.map((i: { id: string }) => i.id)).toContain(id);
    expect(listed.structured.next).toContain('muster_intent_claim');
    expect(listed.text.match(/Next:/g)).toHaveLength(1);

    const claimed = await callTool(asWorker.client, 'muster_intent_claim', { id, leaseSeconds: 120 });
    expect(claimed.isError).toBe(false);
    expect(claimed.structured.state).toBe('TASK_STATE_WORKING');
    const leaseUntil: string = claimed.structured.intent.leaseUntil;
    expect(Date.parse(leaseUntil)).toBeGreaterThan(Date.now());
    expect(claimed.text).toContain(leaseUntil);
    expect(claimed.structured.next).toMatch(/muster_intent_heartbeat.*muster_intent_land/);

    const kept = await callTool(asWorker.client, 'muster_intent_heartbeat', { id });
    expect(Date.parse(kept.structured.intent.leaseUntil)).toBeGreaterThan(Date.parse(leaseUntil)); // 600 s default, past the 120 s claim
    expect(
      (await callTool(asWorker.client, 'muster_intent_progress', { id, text: 'Limiter written; tests next.' }))
        .structured.state,
    ).toBe('TASK_STATE_WORKING');

    const asked = await callTool(asWorker.client, 'muster_intent_ask', { id, text: 'Per caller or per address?' });
    expect(asked.structured.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.structured.next).toContain('muster_wait_task');
    expect(asked.text).toContain('Per caller or per address?'); // the question is the intent's status
    const declarer = await sdkClient(`${hub.url}spaces/links/`, orch.token);
    const answered = wire(
      await declarer.sendMessage(sendRequest('Per address.', { taskId: id, returnImmediately: true })),
    );
    expect(answered.status.state).toBe('TASK_STATE_WORKING');

    const landed = await callTool(asWorker.client, 'muster_intent_land', {
      id,
      summary: 'Rate limited /api/links at 60 a minute per address.',
      commit: 'abc123',
      files: [{ path: 'src/links/limit.ts', why: 'the limiter' }],
    });
    expect(landed.isError).toBe(false);
    expect(landed.structured.state).toBe('TASK_STATE_COMPLETED');

    const read = wire(await declarer.getTask({ tenant: '', id, historyLength: 20 }));
    expect(read.status.state).toBe('TASK_STATE_COMPLETED');
    expect(read.metadata.muster).toMatchObject({
      kind: 'intent',
      space: 'links',
      title,
      worker: 'worker',
      footprint: ['src/links/**'],
    });
    const landing = read.artifacts.find((a: { name: string }) => a.name === 'Landing');
    expect(landing.parts[0].text).toBe('Rate limited /api/links at 60 a minute per address.');
    expect(landing.parts[1].data).toMatchObject({
      commit: 'abc123',
      files: [{ path: 'src/links/limit.ts', why: 'the limiter' }],
    });
    const said = read.history.flatMap((m: { parts: { text?: string }[] }) => m.parts.map((p) => p.text));
    expect(said).toEqual(expect.arrayContaining(['Limiter written; tests next.', 'Per address.']));

    // An ended intent cannot be claimed again: a tool error with the hub's code and hint.
    const again = await callTool(asOther.client, 'muster_intent_claim', { id });
    expect(again.isError).toBe(true);
    expect(again.structured.error).toMatchObject({ code: 'LEASE_HELD', remedy: 'conflict' });
    expect(again.structured.error.hint).toBeTruthy();
  });
});

describe('intent refusals through MCP', () => {
  let asOrch: McpConnection, asWorker: McpConnection, asOther: McpConnection, asBob: McpConnection;
  let id: string;
  beforeAll(async () => {
    [asOrch, asWorker, asOther, asBob] = await Promise.all([
      connect('http', orch),
      connect('http', worker),
      connect('http', other),
      connect('http', bob),
    ]);
    id = (
      await callTool(asOrch.client, 'muster_intent_declare', {
        space: 'links',
        title: 'Refusals',
        footprint: ['src/refusals/**'],
      })
    ).structured.task.id;
    expect((await callTool(asWorker.client, 'muster_intent_claim', { id })).structured.state).toBe(
      'TASK_STATE_WORKING',
    );
  });

  it('claiming an intent another worker holds is LEASE_HELD, naming the holder, with a hint', async () => {
    const taken = await callTool(asOther.client, 'muster_intent_claim', { id });
    expect(taken.isError).toBe(true);
    expect(taken.structured.error).toMatchObject({ code: 'LEASE_HELD', remedy: 'conflict' });
    expect(taken.structured.error.message).toContain('held by worker');
    expect(taken.structured.error.hint).toMatch(/[Cc]laim another intent/);
    expect(taken.structured.error.hint).toContain('muster_intents {space}'); // the hub's route, said as the tool that reads it
    expect(taken.structured.error.hint).not.toContain('/api/');
    expect(taken.text).toMatch(/LEASE_HELD[\s\S]*Hint:/);
  });

  it('landing an intent one does not hold is LEASE_NOT_HELD, and nothing changes', async () => {
    const landed = await callTool(asOther.client, 'muster_intent_land', { id, summary: 'not mine' });
    expect(landed.isError).toBe(true);
    expect(landed.structured.error.code).toBe('LEASE_NOT_HELD');
    expect((await callTool(asWorker.client, 'muster_intent_heartbeat', { id })).structured.state).toBe(
      'TASK_STATE_WORKING',
    );
  });

  it('an agent that is not a worker of the space is FORBIDDEN, with how the owner adds it', async () => {
    const fresh = (
      await callTool(asOrch.client, 'muster_intent_declare', {
        space: 'links',
        title: 'For members only',
        footprint: ['docs/**'],
      })
    ).structured.task.id;
    const refused = await callTool(asBob.client, 'muster_intent_claim', { id: fresh });
    expect(refused.isError).toBe(true);
    expect(refused.structured.error).toMatchObject({ code: 'FORBIDDEN', remedy: 'not-allowed' });
    expect(refused.structured.error.hint).toContain('worker');
  });

  it('a priority out of range, a lease out of range or a title of two lines is a tool error saying what to send', async () => {
    const priority = await callTool(asOrch.client, 'muster_intent_declare', {
      space: 'links',
      title: 'Too urgent',
      footprint: ['x/**'],
      priority: 11,
    });
    expect(priority.isError).toBe(true);
    expect(priority.text).toMatch(/priority/);
    expect(priority.text).toContain('must be from 1 to 10');
    const lease = await callTool(asWorker.client, 'muster_intent_heartbeat', { id, leaseSeconds: 7200 });
    expect(lease.isError).toBe(true);
    expect(lease.text).toContain('must be from 1 to 3600 seconds');
    const title = await callTool(asOrch.client, 'muster_intent_declare', {
      space: 'links',
      title: 'One\nTwo',
      footprint: ['x/**'],
    });
    expect(title.isError).toBe(true);
    expect(title.text).toContain('must be one line: put the detail in why');
    const listed = await callTool(asOrch.client, 'muster_intents', { space: 'links', state: 'all' });
    expect(listed.structured.items.map((i: { title: string }) => i.title)).not.toContain('Too urgent');
  });

  it('an unknown space is SPACE_NOT_FOUND', async () => {
    const missing = await callTool(asWorker.client, 'muster_intents', { space: 'nowhere' });
    expect(missing.isError).toBe(true);
    expect(missing.structured.error).toMatchObject({ code: 'SPACE_NOT_FOUND', remedy: 'not-found' });
  });
});
