/**
 * The MCP door's work-intent and memory-board tools (issue 15) with the official MCP client: a
 * whole intent flow (declare, claim, heartbeat, progress, ask, land) over stdio (`muster mcp`)
 * and Streamable HTTP, checked through A2A with the official SDK client; a memory round trip
 * with the board file embedded, over both transports too; a private board no other agent sees through MCP; refusals as tool
 * errors with the hub's code and hint. On SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, registerAll, rest, type Registered, startTestHub, type TestHub } from './helpers/hub.js';
import {
  callTool,
  connectMcp,
  mcpOverHttp,
  toolNames,
  type McpConnection,
  type McpTransportName,
} from './helpers/mcp.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered, alice: Registered, bob: Registered;
let boss: Registered, hand: Registered, stranger: Registered;
const closing: McpConnection[] = [];
const connect = async (transport: McpTransportName, who?: Registered): Promise<McpConnection> => {
  const made = await connectMcp(transport, hub, who?.token);
  closing.push(made);
  return made;
};

beforeAll(async () => {
  hub = await startTestHub();
  [owner, orch, worker, other, alice, bob, boss, hand, stranger] = await registerAll(
    hub,
    'owner',
    'orch',
    'worker',
    'other',
    'alice',
    'bob',
    'boss',
    'hand',
    'stranger',
  );
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
  await Promise.all(closing.map((c) => c.close().catch(() => undefined)));
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

describe.each<McpTransportName>(['stdio', 'http'])('an MCP-only orchestrator sets up its work over %s', (transport) => {
  let asBoss: McpConnection, asHand: McpConnection, asStranger: McpConnection, anonymous: McpConnection;
  const space = `setup-${transport}`;
  const members = async () =>
    (await callTool(anonymous.client, 'muster_space', { name: space })).structured.members.map(
      (m: { handle: string; role: string }) => `${m.handle}:${m.role}`,
    );
  beforeAll(async () => {
    [asBoss, asHand, asStranger, anonymous] = await Promise.all([
      connect(transport, boss),
      connect(transport, hand),
      connect(transport, stranger),
      connect(transport),
    ]);
  });

  it('makes a space, adds a worker, re-roles and removes it, declares an intent, answers its question and withdraws it', async () => {
    const made = await callTool(asBoss.client, 'muster_space_create', {
      name: space,
      description: 'Set up through MCP alone',
      orchestratorPriority: 3,
    });
    expect(made.isError).toBe(false);
    expect(made.structured.space).toMatchObject({
      name: space,
      owner: 'boss',
      claim: 'members',
      orchestratorPriority: 3,
    });
    expect(made.structured.next).toContain(`muster_space_member_add {space: "${space}", handle, role: "worker"}`);
    expect(await members()).toEqual([]);
    const listed = await callTool(anonymous.client, 'muster_spaces');
    expect(listed.structured.items.map((s: { name: string }) => s.name)).toContain(space);

    const added = await callTool(asBoss.client, 'muster_space_member_add', { space, handle: 'hand', role: 'worker' });
    expect(added.text).toContain(`hand is a worker in space ${space}`);
    expect(await members()).toEqual(['hand:worker']);
    await callTool(asBoss.client, 'muster_space_member_add', { space, handle: 'hand', role: 'orchestrator' });
    expect(await members()).toEqual(['hand:orchestrator']);
    await callTool(asBoss.client, 'muster_space_member_add', { space, handle: 'hand', role: 'worker' });
    const opened = await callTool(asBoss.client, 'muster_space_set', { name: space, claim: 'open' });
    expect(opened.structured.space.claim).toBe('open');

    const declared = await callTool(asBoss.client, 'muster_intent_declare', {
      space,
      title: 'Index the links table',
      footprint: ['src/store/**'],
    });
    const id: string = declared.structured.task.id;
    expect(declared.structured.next).toContain(`muster_reply {id: "${id}", text}`);
    expect(declared.structured.next).toContain(`muster_intent_withdraw {id: "${id}", reason}`);
    expect((await callTool(asHand.client, 'muster_intent_claim', { id })).structured.state).toBe('TASK_STATE_WORKING');

    // The worker asks; the declarer, following the intent, is told which tool answers, and answering with it works.
    await callTool(asHand.client, 'muster_intent_ask', { id, text: 'Which column first?' });
    const waited = await callTool(asBoss.client, 'muster_wait_task', { id, untilState: 'input-required' });
    expect(waited.structured.next).toContain(`muster_reply {id: "${id}", text: "<your answer>"}`);
    const answered = await callTool(asBoss.client, 'muster_reply', { id, text: 'The url column.' });
    expect(answered.structured.task.status.state).toBe('TASK_STATE_WORKING');

    const withdrawn = await callTool(asBoss.client, 'muster_intent_withdraw', { id, reason: 'Done by hand.' });
    expect(withdrawn.isError).toBe(false);
    expect(withdrawn.structured.state).toBe('TASK_STATE_CANCELED');
    expect(withdrawn.text).toContain('Done by hand.');
    expect(withdrawn.structured.next).toContain(`muster_intent_declare {space: "${space}"`);
    const read = (await rest(hub, 'GET', `api/tasks/${id}`)).body;
    expect(read.metadata.muster.cancelReason).toBe('Done by hand.');
    const stopped = await callTool(asHand.client, 'muster_intent_heartbeat', { id });
    expect(stopped.structured.error).toMatchObject({
      code: 'LEASE_NOT_HELD',
      hint: expect.stringContaining('muster_get_task'),
    });
    expect(stopped.text).toContain('was withdrawn; stop work on it');

    const removed = await callTool(asBoss.client, 'muster_space_member_remove', { space, handle: 'hand' });
    expect(removed.structured).toMatchObject({ space, handle: 'hand', removed: true });
    expect(await members()).toEqual([]);
    const again = await callTool(asBoss.client, 'muster_space_member_remove', { space, handle: 'hand' });
    expect(again.structured.error).toMatchObject({ code: 'NOT_FOUND', remedy: 'not-found' });
    expect(again.structured.error.hint).toBe(`List the members with muster_space {name: "${space}"}`);
  });

  it('refuses, in words, an agent that does not own the space, and a space set with nothing to change', async () => {
    const made = await callTool(asBoss.client, 'muster_space_create', { name: `${space}-2` });
    expect(made.isError).toBe(false);
    const id = (
      await callTool(asBoss.client, 'muster_intent_declare', {
        space: `${space}-2`,
        title: 'Mine',
        footprint: ['a/**'],
      })
    ).structured.task.id;

    const joined = await callTool(asStranger.client, 'muster_space_member_add', {
      space: `${space}-2`,
      handle: 'stranger',
      role: 'orchestrator',
    });
    expect(joined.isError).toBe(true);
    expect(joined.structured.error).toMatchObject({
      code: 'FORBIDDEN',
      remedy: 'not-allowed',
      hint: 'The owner is boss',
    });
    expect(joined.text).toContain(`Only the owner of space ${space}-2 or the admin may add members`);
    const pulled = await callTool(asStranger.client, 'muster_intent_withdraw', { id, reason: 'not mine' });
    expect(pulled.isError).toBe(true);
    expect(pulled.structured.error.code).toBe('FORBIDDEN');
    expect(pulled.text).toMatch(/Withdraw an intent/i);
    expect((await rest(hub, 'GET', `api/tasks/${id}`)).body.status.state).toBe('TASK_STATE_SUBMITTED');

    const nothing = await callTool(asBoss.client, 'muster_space_set', { name: `${space}-2` });
    expect(nothing.structured.error).toMatchObject({ code: 'USAGE', remedy: 'fix-input' });
    expect(nothing.text).toContain('muster_space_set needs something to change');
    const taken = await callTool(asStranger.client, 'muster_space_create', { name: space });
    expect(taken.structured.error).toMatchObject({ code: 'NAME_TAKEN', hint: 'Choose another name' });
    const missing = await callTool(asStranger.client, 'muster_space', { name: 'no-such-space' });
    expect(missing.structured.error.code).toBe('SPACE_NOT_FOUND');
    expect(missing.structured.error.hint).toBe('List spaces with muster_spaces; make one with muster_space_create');
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

/** The board files a tool result embeds, parsed, with their uri and mime type. */
const embedded = (result: CallToolResult) =>
  result.content.flatMap((c) =>
    c.type === 'resource' && 'text' in c.resource
      ? [{ uri: c.resource.uri, mimeType: c.resource.mimeType, file: JSON.parse(c.resource.text) }]
      : [],
  );
const raw = async (conn: McpConnection, name: string, args: Record<string, unknown>) =>
  (await conn.client.callTool({ name, arguments: args })) as CallToolResult;

describe.each<McpTransportName>(['stdio', 'http'])('memory boards through MCP over %s', (transport) => {
  let asAlice: McpConnection, asBob: McpConnection, anonymous: McpConnection;
  let boardId: string;
  const secret = `zanzibar${randomUUID().slice(0, 6)}`;
  // alice makes the same boards over each transport: titles of their own keep them apart
  const [launch, ideas] = [`Launch plan ${transport}`, `Ideas ${transport}`];
  beforeAll(async () => {
    [asAlice, asBob, anonymous] = await Promise.all([
      connect(transport, alice),
      connect(transport, bob),
      connect(transport),
    ]);
  });

  it("one tool per board skill, with the skill's arguments as its input schema; none offered without a token", async () => {
    const { tools } = await asAlice.client.listTools();
    const boards = tools.filter((t) => t.name.startsWith('muster_board_'));
    expect(boards.map((t) => t.name).sort()).toEqual([
      'muster_board_connect',
      'muster_board_create',
      'muster_board_insights',
      'muster_board_learn',
      'muster_board_list',
      'muster_board_read',
      'muster_board_recall',
      'muster_board_remember',
    ]);
    const create = boards.find((t) => t.name === 'muster_board_create')!;
    expect(create.inputSchema.required).toEqual(['title', 'cards']);
    expect(Object.keys(create.inputSchema.properties ?? {})).toEqual([
      'title',
      'cards',
      'connections',
      'visibility',
      'sharedWith',
    ]);
    const ours = tools.filter((t) => /^muster_(board_|intent|space)/.test(t.name));
    expect(ours).toHaveLength(24); // 8 board tools, 10 intent tools, 6 space tools
    // A tool that asks for a follow-up says which tool sends it.
    expect(boards.find((t) => t.name === 'muster_board_connect')!.description).toContain(
      'muster_reply {id: <its taskId>, data: {"confirm": true}}',
    );
    for (const t of ours) {
      expect(t.description, t.name).toMatch(/Use it|Use to|Use when|when/i);
      for (const [field, schema] of Object.entries(t.inputSchema.properties ?? {}))
        expect((schema as { description?: string }).description, `${t.name}.${field}`).toBeTruthy();
    }
    expect(tools.find((t) => t.name === 'muster_intent_declare')!.inputSchema.properties!['priority']).toMatchObject({
      minimum: 1,
      maximum: 10,
    });
    expect(boards.find((t) => t.name === 'muster_board_read')!.annotations?.readOnlyHint).toBe(true);
    expect(create.annotations?.readOnlyHint).toBe(false);
    expect((await toolNames(anonymous.client)).filter((n) => n.startsWith('muster_board_'))).toEqual([]);
  });

  it('create, remember, recall, read: each write and the read embed the board file as muster://boards/{id}', async () => {
    const made = await raw(asAlice, 'muster_board_create', {
      title: launch,
      cards: ['Ship the A2A face', { text: `Seed the directory #launch ${secret}`, title: 'Directory' }],
      connections: [{ from: 0, to: 1, type: 'leads_to' }],
    });
    expect(made.isError).toBeFalsy();
    const madeData = made.structuredContent as any;
    expect(madeData.board).toMatchObject({ title: launch, owner: 'alice', visibility: 'private', cards: 2 });
    boardId = madeData.board.id;
    const [file] = embedded(made);
    expect(file).toMatchObject({ uri: `muster://boards/${boardId}`, mimeType: 'application/vnd.muster.board+json' });
    expect(file!.file).toMatchObject({ format: 'muster.board', version: 1, board: { id: boardId, title: launch } });
    expect(file!.file.connections).toMatchObject([{ type: 'leads_to' }]);

    const added = await raw(asAlice, 'muster_board_remember', {
      board: launch,
      cards: ['We chose PostgreSQL for many nodes #decision'],
    });
    expect((added.structuredContent as any).board.cards).toBe(3);
    expect(embedded(added)[0]!.file.cards.map((c: { text: string }) => c.text)).toContain(
      'We chose PostgreSQL for many nodes #decision',
    );

    const recalled = await callTool(asAlice.client, 'muster_board_recall', {
      query: 'postgresql #decision',
      board: boardId,
    });
    expect(recalled.isError).toBe(false);
    expect(recalled.structured.cards[0]).toMatchObject({
      text: 'We chose PostgreSQL for many nodes #decision',
      board: { id: boardId },
    });
    expect(recalled.text).toContain('PostgreSQL');

    const read = await raw(asAlice, 'muster_board_read', { board: boardId });
    expect((read.structuredContent as any).cards).toHaveLength(3);
    const [readFile] = embedded(read);
    expect(readFile!.uri).toBe(`muster://boards/${boardId}`);
    expect(readFile!.file.cards.map((c: { position: number }) => c.position)).toEqual([0, 1, 2]);

    const listed = await callTool(asAlice.client, 'muster_board_list');
    expect(listed.structured.boards.map((b: { id: string }) => b.id)).toContain(boardId);
    expect(embedded(await raw(asAlice, 'muster_board_list', {}))).toEqual([]); // only the skills that answer the file embed it
  });

  it('insights names orphans; connect proposes and asks (input-required), and a follow-up with confirm draws the connections', async () => {
    await callTool(asAlice.client, 'muster_board_create', {
      title: ideas,
      cards: ['cache the directory search results', 'cache directory search per caller', 'what about eviction?'],
    });
    const insight = await callTool(asAlice.client, 'muster_board_insights', { board: ideas });
    expect(insight.structured.orphans).toHaveLength(3);
    const proposed = await callTool(asAlice.client, 'muster_board_connect', { board: ideas });
    expect(proposed.structured.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(proposed.structured.proposal.length).toBeGreaterThan(0);
    expect(proposed.structured.next).toContain(
      `muster_reply {id: "${proposed.structured.taskId}", data: {"confirm": true}}`,
    );
    // The tool the answer names does it: muster_reply, a follow-up with the taskId at the hub's base.
    const drawn = await callTool(asAlice.client, 'muster_reply', {
      id: proposed.structured.taskId,
      data: { confirm: true },
    });
    expect(drawn.structured.task.status.state).toBe('TASK_STATE_COMPLETED');
    const read = await raw(asAlice, 'muster_board_read', { board: ideas });
    expect(embedded(read)[0]!.file.connections.length).toBe(proposed.structured.proposal.length);
  });

  it('a private board is never seen through MCP by another agent: not listed, not read, not recalled, not written', async () => {
    const listed = await callTool(asBob.client, 'muster_board_list');
    expect(listed.isError).toBe(false);
    expect(listed.structured.boards.map((b: { id: string }) => b.id)).not.toContain(boardId);
    for (const board of [boardId, launch]) {
      const read = await raw(asBob, 'muster_board_read', { board });
      expect(read.isError).toBe(true);
      expect((read.structuredContent as any).error).toMatchObject({ code: 'BOARD_NOT_FOUND', remedy: 'not-found' });
      expect((read.structuredContent as any).error.hint).toContain('muster_board_list');
      expect((read.structuredContent as any).error.hint).not.toContain('"skill"');
      expect(embedded(read)).toEqual([]);
      expect(JSON.stringify(read)).not.toContain(secret);
    }
    const recalled = await callTool(asBob.client, 'muster_board_recall', { query: secret });
    expect(recalled.structured.cards).toEqual([]);
    expect(JSON.stringify(recalled)).not.toContain('Seed the directory');
    const written = await callTool(asBob.client, 'muster_board_remember', { board: boardId, cards: ['mine now'] });
    expect(written.structured.error.code).toBe('BOARD_NOT_FOUND');
    expect((await callTool(asAlice.client, 'muster_board_read', { board: boardId })).structured.board.cards).toBe(3);
  });

  it('bad board arguments are tool errors that say what to send', async () => {
    const bad = await callTool(asAlice.client, 'muster_board_recall', { query: 'x', limit: 99 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('must be from 1 to 50');
    const shared = await callTool(asAlice.client, 'muster_board_create', {
      title: 'Shared?',
      cards: ['a'],
      sharedWith: ['bob'],
    });
    expect(shared.isError).toBe(true);
    expect(shared.structured.error).toMatchObject({ code: 'INVALID_PARAMS', remedy: 'fix-input' });
    expect(shared.structured.error.hint).toContain('"visibility": "shared"');
  });
});

// The admin's token reaches the MCP door too, but the memory base takes agents only.
it("an admin calling a board tool is refused with the hub's code", async () => {
  const admin = await mcpOverHttp(hub, ADMIN_TOKEN);
  closing.push(admin);
  const refused = await callTool(admin.client, 'muster_board_list');
  expect(refused.isError).toBe(true);
  expect(refused.structured.error.code).toMatch(/FORBIDDEN|UNAUTHENTICATED/);
});
