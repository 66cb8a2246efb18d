/**
 * The MCP door's resources (issue 15) with the official MCP client, over stdio (a real `muster mcp`
 * child) and over Streamable HTTP (/mcp), on SQLite or PostgreSQL (MUSTER_TEST_PG): a task, a space
 * and a board read as resources, and a subscriber notified when one changes (a board through A2A;
 * on PostgreSQL, a task and a board changed through another node of one database).
 */
import { SendMessageRequest } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterOnPostgres } from './helpers/cluster.js';
import { openStreams, register, rest, sendTask, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, connectMcp, mcpOverHttp, type McpConnection, type McpTransportName } from './helpers/mcp.js';
import { startDoorHub } from './helpers/mcp-door.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { sdkClient, wire } from './helpers/sdk.js';

/** The resources/updated notifications a client receives, to take one at a time. */
function updates(client: Client): { next(): Promise<string> } {
  const seen: string[] = [];
  const waiting: ((uri: string) => void)[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    const uri = n.params.uri;
    const waiter = waiting.shift();
    if (waiter) waiter(uri);
    else seen.push(uri);
  });
  return {
    next: () => (seen.length > 0 ? Promise.resolve(seen.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

/** A board skill called over A2A at `node`'s memory base with the official SDK client (not through MCP). */
async function boardSkillOverA2A(node: { url: string }, token: string, skill: string, args: object): Promise<any> {
  const a2a = await sdkClient(`${node.url}memory/`, token);
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, args } }] };
  return wire(await a2a.sendMessage(SendMessageRequest.fromJSON({ message })));
}

/** The cards' texts of the board a resource read answers. */
const cardTexts = (read: { contents: unknown[] }): string[] =>
  JSON.parse((read.contents[0] as { text: string }).text).cards.map((c: { text: string }) => c.text);

describe('the MCP door on one hub', () => {
  let hub: TestHub;
  let alice: Registered, bob: Registered;
  beforeAll(async () => {
    ({ hub, alice, bob } = await startDoorHub());
  });
  afterAll(async () => {
    await hub.destroy();
  });

  describe.each<McpTransportName>(['stdio', 'http'])('over %s', (transport) => {
    let agent: McpConnection;
    beforeAll(async () => {
      agent = await connectMcp(transport, hub, alice.token);
    });
    afterAll(async () => {
      await agent?.close();
    });

    it('reads a task resource and notifies a subscriber when the task changes; unsubscribing stops it', async () => {
      const id = await sendTask(hub, alice, 'bob', `subscribe ${transport}`);
      const uri = `muster://tasks/${id}`;
      const read = await agent.client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
        id,
        status: { state: 'TASK_STATE_SUBMITTED' },
      });
      const heard = updates(agent.client);
      await agent.client.subscribeResource({ uri });
      await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'working' } });
      expect(await heard.next()).toBe(uri);
      await expect.poll(() => openStreams(hub)).toBe(1); // the subscription's wait on the event log
      await agent.client.unsubscribeResource({ uri });
      await expect.poll(() => openStreams(hub)).toBe(0);
      // the end of the connection ends whatever it followed
      const other = await connectMcp(transport, hub, alice.token);
      await other.client.subscribeResource({ uri });
      await expect.poll(() => openStreams(hub)).toBe(1);
      await other.close();
      await expect.poll(() => openStreams(hub)).toBe(0);
    });
  });

  it('reads a space with its open intents, and notifies a subscriber when the space changes', async () => {
    expect((await rest(hub, 'POST', 'api/spaces', { token: alice.token, body: { name: 'docs' } })).status).toBe(201);
    const connection = await mcpOverHttp(hub, alice.token);
    try {
      const uri = 'muster://spaces/docs';
      const read = await connection.client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
        name: 'docs',
        owner: 'alice',
        openIntents: [],
      });
      const heard = updates(connection.client);
      await connection.client.subscribeResource({ uri });
      await rest(hub, 'PUT', 'api/spaces/docs/members/bob', { token: alice.token, body: { role: 'worker' } });
      expect(await heard.next()).toBe(uri);
      const again = await connection.client.readResource({ uri });
      expect(JSON.parse((again.contents[0] as { text: string }).text).members).toEqual(
        expect.arrayContaining([expect.objectContaining({ handle: 'bob', role: 'worker' })]),
      );
    } finally {
      await connection.close();
    }
  });

  it('reads a board and notifies a subscriber when a card is added over A2A; another agent cannot follow it', async () => {
    const [asAlice, asBob] = await Promise.all([mcpOverHttp(hub, alice.token), mcpOverHttp(hub, bob.token)]);
    try {
      const made = await callTool(asAlice.client, 'muster_board_create', { title: 'Followed', cards: ['first'] });
      const uri = `muster://boards/${made.structured.board.id}`;
      expect(cardTexts(await asAlice.client.readResource({ uri }))).toEqual(['first']);
      const heard = updates(asAlice.client);
      await asAlice.client.subscribeResource({ uri });
      await expect(asBob.client.subscribeResource({ uri })).rejects.toThrow();
      const added = await boardSkillOverA2A(hub, alice.token, 'board.remember', {
        board: made.structured.board.id,
        cards: ['second'],
      });
      expect(added.status.state).toBe('TASK_STATE_COMPLETED');
      expect(await heard.next()).toBe(uri);
      expect(cardTexts(await asAlice.client.readResource({ uri }))).toEqual(['first', 'second']);
    } finally {
      await Promise.all([asAlice.close(), asBob.close()]);
    }
  });
});

describe.skipIf(!testPostgres)('the MCP door on two nodes of one PostgreSQL database', () => {
  const admin = 'mcp-nodes-admin';
  const cluster = clusterOnPostgres('mcp_door_nodes', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: admin },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess;
  let alice: Registered, bob: Registered;
  beforeAll(async () => {
    [A, B] = cluster.nodes as [NodeProcess, NodeProcess];
    alice = await register(A, 'alice', {}, admin);
    bob = await register(B, 'bob', {}, admin);
  });

  it('notifies a subscriber on node A of a change written through node B, and wait_task on A answers it', async () => {
    const id = await sendTask(A, alice, 'bob', 'across nodes');
    const onA = await mcpOverHttp(A, alice.token);
    try {
      const uri = `muster://tasks/${id}`;
      const heard = updates(onA.client);
      await onA.client.subscribeResource({ uri });
      const waiting = callTool(onA.client, 'muster_wait_task', {
        id,
        untilState: 'input-required',
        timeoutSeconds: 50,
      });
      await rest(B, 'POST', `api/tasks/${id}/respond`, {
        token: bob.token,
        body: { state: 'input-required', message: { parts: [{ text: 'which language?' }] } },
      });
      expect(await heard.next()).toBe(uri);
      const answered = await waiting;
      expect(answered.structured).toMatchObject({ reached: true, state: 'TASK_STATE_INPUT_REQUIRED' });
      expect(answered.structured.next).toContain('muster_reply');
    } finally {
      await onA.close();
    }
  });

  it('notifies a subscriber on node A of a board changed through node B', async () => {
    const onA = await mcpOverHttp(A, alice.token);
    try {
      const made = await callTool(onA.client, 'muster_board_create', { title: 'Across nodes', cards: ['on A'] });
      const uri = `muster://boards/${made.structured.board.id}`;
      const heard = updates(onA.client);
      await onA.client.subscribeResource({ uri });
      await boardSkillOverA2A(B, alice.token, 'board.remember', { board: made.structured.board.id, cards: ['on B'] });
      expect(await heard.next()).toBe(uri);
      expect(cardTexts(await onA.client.readResource({ uri }))).toEqual(['on A', 'on B']);
    } finally {
      await onA.close();
    }
  });
});
