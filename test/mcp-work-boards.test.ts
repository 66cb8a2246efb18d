/**
 * The MCP door's memory-board tools (issue 15) with the official MCP client, over stdio
 * (`muster mcp`) and Streamable HTTP: one tool per board skill, a memory round trip with the board
 * file embedded, a private board no other agent sees through MCP, bad arguments as tool errors that
 * say what to send, and the admin refused. On SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, registerAll, type Registered, startTestHub, type TestHub } from './helpers/hub.js';
import {
  callTool,
  mcpConnections,
  mcpOverHttp,
  toolNames,
  type McpConnection,
  type McpTransportName,
} from './helpers/mcp.js';

let hub: TestHub;
let alice: Registered, bob: Registered;
const { connect, keep, closeAll } = mcpConnections(() => hub);

beforeAll(async () => {
  hub = await startTestHub();
  [alice, bob] = await registerAll(hub, 'alice', 'bob');
});
afterAll(async () => {
  await closeAll();
  await hub?.destroy();
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
  const admin = keep(await mcpOverHttp(hub, ADMIN_TOKEN));
  const refused = await callTool(admin.client, 'muster_board_list');
  expect(refused.isError).toBe(true);
  expect(refused.structured.error.code).toMatch(/FORBIDDEN|UNAUTHENTICATED/);
});
