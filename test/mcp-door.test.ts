/**
 * The MCP door (issue 15) with the official MCP client, over stdio (a real `muster mcp`) and over
 * Streamable HTTP (/mcp), on SQLite or PostgreSQL (MUSTER_TEST_PG).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, connectMcp, toolNames, type McpConnection, type McpTransportName } from './helpers/mcp.js';

let hub: TestHub;
let alice: Registered;
beforeAll(async () => {
  hub = await startTestHub();
  alice = await register(hub, 'alice', {}, ADMIN_TOKEN);
});
afterAll(() => hub.destroy());

describe.each<McpTransportName>(['stdio', 'http'])('the MCP door over %s', (transport) => {
  let anonymous: McpConnection, agent: McpConnection;
  beforeAll(async () => {
    [anonymous, agent] = await Promise.all([connectMcp(transport, hub), connectMcp(transport, hub, alice.token)]);
  });
  afterAll(async () => {
    await Promise.all([anonymous?.close(), agent?.close()]);
  });

  it('lists only public tools without a token, and every tool with one', async () => {
    const open = await toolNames(anonymous.client);
    const all = await toolNames(agent.client);
    expect(open).toContain('muster_whoami');
    expect(all.length).toBeGreaterThanOrEqual(open.length);
    expect(all.every((name) => name.startsWith('muster_'))).toBe(true);
  });

  it('answers who the connection acts as', async () => {
    const me = await callTool(agent.client, 'muster_whoami');
    expect(me.isError).toBe(false);
    expect(me.structured.me).toMatchObject({ kind: 'agent', handle: 'alice' });
    const nobody = await callTool(anonymous.client, 'muster_whoami');
    expect(nobody.structured.me).toEqual({ kind: 'anonymous' });
  });
});
