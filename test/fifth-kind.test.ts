/**
 * What a new kind costs: a toy fifth kind (test/fixtures/kinds/echo/, never shipped) is added to
 * the two lists — the server list handed to startHub, the client list handed to the CLI and the
 * MCP server — and nowhere else. Its setting and quota rule reach the settings table, its own base
 * serves its card and tasks, the view lists them, and its CLI command and MCP tool work, on a
 * real hub (SQLite, or PostgreSQL with MUSTER_TEST_PG).
 */
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubSettings } from '../src/config/index.js';
import { silentLogger } from '../src/observability/logger.js';
import { startHub, type RunningHub } from '../src/server.js';
import { KIND_MODULES } from '../src/kinds/server.js';
import { echoModule } from './fixtures/kinds/echo/echo.js';
import { echoClient } from './fixtures/kinds/echo/client/index.js';
import { KIND_CLIENTS } from '../src/kinds/client.js';
import { childEnv, type Run } from './helpers/cli.js';
import { testDatabase, type TestDatabase } from './helpers/database.js';
import { ADMIN_TOKEN, awayFromWindowEdge, register, rpc } from './helpers/hub.js';
import { TEST_HUB_DEFAULTS } from './helpers/defaults.js';
import { callTool, mcpOverHttp } from './helpers/mcp.js';
import { throughTsx } from './helpers/muster-command.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ECHO_MAIN = 'test/fixtures/kinds/echo/muster-with-echo.ts';
const MODULES = [...KIND_MODULES, echoModule];
const SETTINGS = hubSettings(MODULES);

let db: TestDatabase;
let hub: RunningHub;
let alice: { handle: string; token: string };

beforeAll(async () => {
  db = await testDatabase('fifth-kind');
  const env = { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, ...TEST_HUB_DEFAULTS, MUSTER_ECHO_PREFIX: 'heard: ' };
  hub = await startHub(SETTINGS.resolveConfig({ port: '0', host: '127.0.0.1', db: db.url }, env), {
    logger: silentLogger(),
    modules: MODULES,
    clients: [...KIND_CLIENTS, echoClient],
  });
  alice = await register(hub, 'alice');
});

afterAll(async () => {
  await hub?.close();
  await db?.drop();
});

/** The muster command built with the echo kind's client half in its list. */
function musterWithEcho(args: string[], token: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...throughTsx(ECHO_MAIN), ...args], {
      cwd: ROOT,
      env: childEnv(hub.url, token, {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a fifth kind, added to the two lists only', () => {
  it('brings its setting and its quota rule into the hub settings table', () => {
    expect(SETTINGS.settings['echoPrefix']).toMatchObject({
      flag: '--echo-prefix',
      env: 'MUSTER_ECHO_PREFIX',
      fallback: 'echo: ',
    });
    expect(SETTINGS.settings['limitEchoSender']).toMatchObject({ env: 'MUSTER_LIMIT_ECHO_SENDER', fallback: '5' });
    expect(hubSettings(KIND_MODULES).settings['echoPrefix']).toBeUndefined();
  });

  it('serves its own base: its card, its tasks answered as its setting says, listed there and read at the hub', async () => {
    const client = await sdkClient(`${hub.url}echo/`, alice.token);
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id)).toEqual(['echo']);
    const task = wire(await client.sendMessage(sendRequest('hello')));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe('heard: hello');

    const listed = await rpc(hub.url + 'echo/', 'ListTasks', {}, { token: alice.token });
    expect(listed.body.result.tasks.map((t: { id: string }) => t.id)).toContain(task.id);
    const read = await rpc(hub.url, 'GetTask', { id: task.id }, { token: alice.token });
    expect(read.body.result.metadata.muster.kind).toBe('echo');
    const bob = await register(hub, 'bob');
    const hidden = await rpc(hub.url, 'GetTask', { id: task.id }, { token: bob.token });
    expect(hidden.body.error).toBeDefined(); // readers: the sender alone
  });

  it('counts its own quota rule', async () => {
    await awayFromWindowEdge(60_000);
    const carol = await register(hub, 'carol');
    const client = await sdkClient(`${hub.url}echo/`, carol.token);
    for (let i = 0; i < 5; i++) await client.sendMessage(sendRequest(`once ${i}`));
    const over = await rpc(
      hub.url + 'echo/',
      'SendMessage',
      { message: { messageId: 'over-the-limit', role: 'ROLE_USER', parts: [{ text: 'one too many' }] } },
      { token: carol.token },
    );
    expect(JSON.stringify(over.body.error)).toContain('RATE_LIMITED');
  });

  it('brings its CLI command to the muster program built from the client list', async () => {
    const run = await musterWithEcho(['echo', 'from the command line'], alice.token);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('heard: from the command line');
    expect(run.code).toBe(0);
  });

  it('brings its MCP tool to `muster mcp` built from the client list', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...throughTsx(ECHO_MAIN), 'mcp'],
      cwd: ROOT,
      env: childEnv(hub.url, alice.token, {}) as Record<string, string>,
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'fifth-kind-test', version: '0.0.0' });
    await mcp.connect(transport);
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toContain('muster_echo');
      const outcome = await callTool(mcp, 'muster_echo', { text: 'over MCP' });
      expect(outcome.isError).toBeFalsy();
      expect(JSON.stringify(outcome.structured)).toContain('heard: over MCP');
    } finally {
      await mcp.close();
    }
  });

  it("brings its MCP tool to the hub's /mcp, built from the client list the hub was handed", async () => {
    const { client, close } = await mcpOverHttp(hub, alice.token);
    try {
      const outcome = await callTool(client, 'muster_echo', { text: 'at the hub' });
      expect(outcome.isError).toBe(false);
      expect(JSON.stringify(outcome.structured)).toContain('heard: at the hub');
    } finally {
      await close();
    }
  });
});
