/**
 * The MCP door (issue 15) with the official MCP client: over stdio (a real `muster mcp` child) and
 * over Streamable HTTP (/mcp), on SQLite or PostgreSQL (MUSTER_TEST_PG): the tools listed (public
 * only without a token), whoami, the directory and cards, tool errors with the hub's code and hint,
 * a tool call whose signal ended making no hub call, and /mcp's Host, Origin, token and session
 * checks. Waits: mcp-door-waits.test.ts; resources and their notifications: mcp-door-resources.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCall } from '../src/mcp/tool.js';
import { KIND_CLIENTS } from '../src/kinds/client.js';
import { rest, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, connectMcp, type McpConnection, type McpTransportName } from './helpers/mcp.js';
import { startDoorHub } from './helpers/mcp-door.js';

const PUBLIC_DOOR_TOOLS = ['muster_whoami', 'muster_directory_search', 'muster_card'];

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
