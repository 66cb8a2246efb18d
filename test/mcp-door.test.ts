/**
 * The MCP door (issue 15) with the official MCP client: over stdio (a real `muster mcp` child) and
 * over Streamable HTTP (/mcp), on SQLite or PostgreSQL (MUSTER_TEST_PG): the tools listed (public
 * only without a token), whoami, the directory and cards, muster_wait_task answering when another
 * agent answers (through REST, or from its own A2A endpoint the task was forwarded to), a tool call
 * whose signal ended making no hub call, tool errors with the hub's code and hint, /mcp's Host,
 * Origin, token and session checks, and a subscribed task, space and board notified of a change
 * (made through another node of one database on PostgreSQL).
 */
import { SendMessageRequest } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCall } from '../src/mcp/tool.js';
import { KIND_CLIENTS } from '../src/kinds/client.js';
import { forwardingAgent, startA2AEndpoint } from './helpers/a2a-endpoint.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import { ADMIN_TOKEN, register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, connectMcp, mcpOverHttp, type McpConnection, type McpTransportName } from './helpers/mcp.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { sdkClient, wire } from './helpers/sdk.js';

const PUBLIC_DOOR_TOOLS = ['muster_whoami', 'muster_directory_search', 'muster_card'];

/** alice sends bob a direct task over A2A (returnImmediately); answers its id. */
async function sendTask(hub: { url: string }, from: Registered, to: string, text: string): Promise<string> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
  const res = await rpc(
    `${hub.url}agents/${to}/`,
    'SendMessage',
    { message, configuration: { returnImmediately: true } },
    { token: from.token },
  );
  if (!res.body.result?.task) throw new Error(JSON.stringify(res.body));
  return res.body.result.task.id as string;
}

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
  let alice: Registered, bob: Registered, fwd: Registered;
  /** An agent with its own A2A endpoint (the official SDK's server): a task forwarded to it is answered through the hub. */
  let endpoint: Awaited<ReturnType<typeof startA2AEndpoint>>;
  /** The hub's open event streams (a subscription holds one while it waits on the log). */
  const openStreams = async (): Promise<number> => {
    const metrics = await fetch(`${hub.url}metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return Number(/^muster_open_streams (\d+)/m.exec(await metrics.text())?.[1]);
  };
  beforeAll(async () => {
    hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_DELIVERY_RETRIES: '1,1,2' });
    alice = await register(hub, 'alice', { name: 'Alice', description: 'sends translation work' }, ADMIN_TOKEN);
    bob = await register(
      hub,
      'bob',
      { name: 'Bob the translator', description: 'translates into French' },
      ADMIN_TOKEN,
    );
    endpoint = await startA2AEndpoint({
      onReceive: (body) => {
        const { taskId } = body.params.message.metadata.muster;
        const answer = {
          state: 'completed',
          message: { parts: [{ text: `done: ${body.params.message.parts[0].text}` }] },
          artifacts: [{ name: 'out', parts: [{ text: 'result' }] }],
        };
        void rest(hub, 'POST', `api/tasks/${taskId}/respond`, { token: fwd.token, body: answer });
      },
    });
    fwd = await forwardingAgent(hub, 'fwd', endpoint, ADMIN_TOKEN);
  });
  afterAll(async () => {
    await endpoint?.close();
    await hub.destroy();
  });

  describe.each<McpTransportName>(['stdio', 'http'])('over %s', (transport) => {
    let anonymous: McpConnection, agent: McpConnection;
    beforeAll(async () => {
      [anonymous, agent] = await Promise.all([connectMcp(transport, hub), connectMcp(transport, hub, alice.token)]);
    });
    afterAll(async () => {
      await Promise.all([anonymous?.close(), agent?.close()]);
    });

    it('lists only the public tools without a token, and every tool with one, each with a schema and a description', async () => {
      const open = (await anonymous.client.listTools()).tools;
      const all = (await agent.client.listTools()).tools;
      expect(open.map((t) => t.name)).toEqual(expect.arrayContaining(PUBLIC_DOOR_TOOLS));
      expect(open.map((t) => t.name)).not.toContain('muster_wait_task');
      expect(all.map((t) => t.name)).toEqual(expect.arrayContaining([...PUBLIC_DOOR_TOOLS, 'muster_wait_task']));
      for (const t of all) {
        expect(t.name).toMatch(/^muster_[a-z_]+$/);
        expect(t.description!.length).toBeGreaterThan(40);
        expect(t.inputSchema.type).toBe('object');
        for (const [field, schema] of Object.entries(t.inputSchema.properties ?? {}))
          expect((schema as { description?: string }).description, `${t.name}.${field}`).toBeTruthy();
        expect(t.annotations?.readOnlyHint, t.name).toEqual(expect.any(Boolean));
      }
      expect(all.find((t) => t.name === 'muster_wait_task')!.inputSchema.properties).toHaveProperty('afterSeq');
      // a tool not listed cannot be called either
      const hidden = await anonymous.client
        .callTool({ name: 'muster_wait_task', arguments: { id: 'x' } })
        .catch((e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }));
      expect(hidden.isError).toBe(true);
    });

    it('answers who the connection acts as', async () => {
      const me = await callTool(agent.client, 'muster_whoami');
      expect(me.isError).toBe(false);
      expect(me.structured.me).toMatchObject({ kind: 'agent', handle: 'alice' });
      expect(me.text).toContain('alice');
      expect(agent.client.getInstructions()).toContain('muster_space_create'); // how an MCP-only orchestrator starts
      const nobody = await callTool(anonymous.client, 'muster_whoami');
      expect(nobody.structured.me).toEqual({ kind: 'anonymous' });
      // muster mcp says what it serves on stderr: stdout is the MCP stream's alone
      if (transport === 'stdio') {
        expect(agent.stderr()).toContain(`serving ${hub.url} with a token`);
        expect(anonymous.stderr()).toContain('without a token (public tools only)');
      }
    });

    it('searches the directory and reads an agent card, without a token too', async () => {
      const found = await callTool(anonymous.client, 'muster_directory_search', { q: 'french' });
      expect(found.isError).toBe(false);
      expect(found.structured.items.map((a: { handle: string }) => a.handle)).toEqual(['bob']);
      expect(found.text).toContain('bob');
      const card = await callTool(anonymous.client, 'muster_card', { handle: 'bob' });
      expect(card.structured.card).toMatchObject({ name: 'Bob the translator' });
      expect(card.structured.next).toContain('muster_send');
    });

    it('refuses with a tool error carrying the hub code, a hint and the remedy', async () => {
      const missing = await callTool(anonymous.client, 'muster_card', { handle: 'nobody-here' });
      expect(missing.isError).toBe(true);
      expect(missing.structured.error).toMatchObject({ code: 'AGENT_NOT_FOUND', remedy: 'not-found' });
      expect(missing.text).toContain('AGENT_NOT_FOUND');
      const unknownTask = await callTool(agent.client, 'muster_wait_task', { id: 'no-such-task', timeoutSeconds: 0 });
      expect(unknownTask.isError).toBe(true);
      expect(unknownTask.structured.error.code).toBe('TASK_NOT_FOUND');
      expect(unknownTask.structured.error.hint).toEqual(expect.any(String));
      expect(unknownTask.text).toContain('Hint:');
      // what the schema refuses is refused the same way, naming the argument
      const tooLong = await callTool(agent.client, 'muster_wait_task', { id: 'x', timeoutSeconds: 99 });
      expect(tooLong.structured.error).toMatchObject({
        code: 'INVALID_PARAMS',
        remedy: 'fix-input',
        fields: [{ field: 'timeoutSeconds' }],
        hint: expect.any(String),
      });
      const anonymousWait = await callTool(anonymous.client, 'muster_whoami', { extra: true });
      expect(anonymousWait.structured.error.code).toBe('INVALID_PARAMS');
      // a kind's tool too: a misspelt argument is refused, not dropped (nothing is sent)
      const misspelt = await callTool(agent.client, 'muster_send', { to: 'bob', text: 'hello', contextID: 'c-1' });
      expect(misspelt.structured.error).toMatchObject({ code: 'INVALID_PARAMS', remedy: 'fix-input' });
      expect(misspelt.text).toContain('contextID');
    });

    it('muster_wait_task answers when the other agent answers the task, and says nothing changed when nothing did', async () => {
      const id = await sendTask(hub, alice, 'bob', `translate ${transport}`);
      const quiet = await callTool(agent.client, 'muster_wait_task', { id, timeoutSeconds: 0 });
      expect(quiet.structured).toMatchObject({ timedOut: true, changed: false, state: 'TASK_STATE_SUBMITTED' });
      const lastSeq = quiet.structured.lastSeq as number;
      expect(lastSeq).toBeGreaterThan(0);

      const waiting = callTool(agent.client, 'muster_wait_task', {
        id,
        afterSeq: lastSeq,
        untilState: 'completed',
        timeoutSeconds: 50,
      });
      await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'working' } });
      await rest(hub, 'POST', `api/tasks/${id}/respond`, {
        token: bob.token,
        body: { state: 'completed', message: { parts: [{ text: 'bonjour' }] } },
      });
      const done = await waiting;
      expect(done.isError).toBe(false);
      expect(done.structured).toMatchObject({
        reached: true,
        changed: true,
        timedOut: false,
        state: 'TASK_STATE_COMPLETED',
      });
      expect(done.structured.lastSeq).toBeGreaterThan(lastSeq);
      expect(done.text).toContain('completed');
      // A task the caller may not see is not found, whatever waits on it.
      const stranger = await register(hub, `carol-${transport}`, {}, ADMIN_TOKEN);
      const outsider = await connectMcp(transport, hub, stranger.token);
      try {
        const refused = await callTool(outsider.client, 'muster_wait_task', { id, timeoutSeconds: 0 });
        expect(refused.structured.error.code).toBe('TASK_NOT_FOUND');
      } finally {
        await outsider.close();
      }
    });

    it('muster_wait_task answers when the target, an agent with its own A2A endpoint, answers the task forwarded to it', async () => {
      const text = `forwarded over ${transport}`;
      const sent = await callTool(agent.client, 'muster_send', { to: 'fwd', text });
      expect(sent.isError).toBe(false);
      const id: string = sent.structured.task.id;
      const done = await callTool(agent.client, 'muster_wait_task', {
        id,
        untilState: 'completed',
        timeoutSeconds: 50,
      });
      expect(done.isError).toBe(false);
      expect(done.structured).toMatchObject({ reached: true, timedOut: false, state: 'TASK_STATE_COMPLETED' });
      expect(done.text).toContain(`done: ${text}`);
      expect(done.structured.task.artifacts).toEqual([
        expect.objectContaining({ name: 'out', parts: [{ text: 'result' }] }),
      ]);
      // it reached the agent over A2A, at the official SDK's server
      expect(endpoint.received.map((r) => r.body.params.message.parts[0].text)).toContain(text);
    });

    it('a wait the client cancels, or whose session ends, stops waiting at the hub at once', async () => {
      const id = await sendTask(hub, alice, 'bob', `cancelled wait ${transport}`);
      const cancel = new AbortController();
      const cancelled = agent.client.callTool(
        { name: 'muster_wait_task', arguments: { id, timeoutSeconds: 50 } },
        { signal: cancel.signal },
      );
      await expect.poll(openStreams).toBe(1); // the wait on the task's event log
      cancel.abort();
      await expect(cancelled).rejects.toThrow();
      await expect.poll(openStreams).toBe(0);
      const leaving = await connectMcp(transport, hub, alice.token);
      const orphaned = leaving.client
        .callTool({ name: 'muster_wait_task', arguments: { id, timeoutSeconds: 50 } })
        .catch(() => undefined);
      await expect.poll(openStreams).toBe(1);
      await leaving.close();
      await orphaned;
      await expect.poll(openStreams).toBe(0);
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
      await expect.poll(openStreams).toBe(1); // the subscription's wait on the event log
      await agent.client.unsubscribeResource({ uri });
      await expect.poll(openStreams).toBe(0);
      // the end of the connection ends whatever it followed
      const other = await connectMcp(transport, hub, alice.token);
      await other.client.subscribeResource({ uri });
      await expect.poll(openStreams).toBe(1);
      await other.close();
      await expect.poll(openStreams).toBe(0);
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

  it('a tool call that has ended makes no hub call: muster_send with its signal ended sends nothing', async () => {
    const send = KIND_CLIENTS.flatMap((k) => k.tools ?? []).find((t) => t.name === 'muster_send')!;
    const asAlice = { url: hub.url, token: alice.token };
    const inbox = async () =>
      JSON.stringify((await rest(hub, 'GET', 'api/inbox?state=all&limit=50', { token: bob.token })).body);
    const [ended, live] = [`cancelled ${randomUUID()}`, `live ${randomUUID()}`];
    await expect(send.run({ to: 'bob', text: ended }, toolCall(asAlice, AbortSignal.abort()))).rejects.toMatchObject({
      code: 'UNREACHABLE',
    });
    await send.run({ to: 'bob', text: live }, toolCall(asAlice, new AbortController().signal));
    const seen = await inbox();
    expect(seen).toContain(live);
    expect(seen).not.toContain(ended);
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

  describe('/mcp over HTTP', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const post = (headers: Record<string, string>, body: unknown = initialize) =>
      fetch(`${hub.url}mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });

    // fetch sets Host itself: a DNS-rebinding Host needs node's own client.
    const postWithHost = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: hub.port,
            path: '/mcp',
            method: 'POST',
            headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          },
          (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(initialize));
      });

    it('refuses a foreign Origin (a write or a stream) and a DNS-rebinding Host, in the hub shape with a hint', async () => {
      const fromPage = await post({ origin: 'http://evil.example' });
      expect(fromPage.status).toBe(403);
      expect(((await fromPage.json()) as any).error).toMatchObject({ code: 'FORBIDDEN', hint: expect.any(String) });
      const stream = await fetch(`${hub.url}mcp`, {
        headers: { accept: 'text/event-stream', origin: 'http://evil.example' },
      });
      expect(stream.status).toBe(403);
      const rebound = await postWithHost('evil.example');
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body).error.code).toBe('FORBIDDEN');
      const sameOrigin = await post({ origin: new URL(hub.url).origin });
      expect(sameOrigin.status).toBe(200);
    });

    it('answers a bad token with the hub usual 401, an unknown session with 404, and a request without a session with a hint', async () => {
      const bad = await post({ authorization: 'Bearer not-a-token' });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const unknown = await post({ 'mcp-session-id': randomUUID() }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as any).error.message).toContain('initialize');
      const sessionless = await post({}, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
      expect(sessionless.status).toBe(400);
      expect(((await sessionless.json()) as any).error.hint).toContain('Mcp-Session-Id');
    });

    it('keeps a session to the token that opened it', async () => {
      const opened = await post({ authorization: `Bearer ${alice.token}` });
      const session = opened.headers.get('mcp-session-id')!;
      expect(session).toBeTruthy();
      const asBob = await post(
        { authorization: `Bearer ${bob.token}`, 'mcp-session-id': session },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      );
      expect(asBob.status).toBe(403);
      const ended = await fetch(`${hub.url}mcp`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${alice.token}`, 'mcp-session-id': session },
      });
      expect(ended.status).toBe(200);
      const gone = await post(
        { authorization: `Bearer ${alice.token}`, 'mcp-session-id': session },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      );
      expect(gone.status).toBe(404);
    });
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
