/**
 * The official MCP client (@modelcontextprotocol/client) connected to a test hub's MCP door: over
 * Streamable HTTP to its /mcp, or over stdio to a real `muster mcp` child process (spawned as
 * test/helpers/cli.ts spawns the CLI, with MUSTER_URL and MUSTER_TOKEN), with or without a token.
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fileURLToPath } from 'node:url';
import { childEnv } from './cli.js';
import { MUSTER_COMMAND } from './muster-command.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type McpTransportName = 'http' | 'stdio';

export interface McpConnection {
  client: Client;
  /** What the stdio child wrote on stderr so far (empty over HTTP). */
  stderr(): string;
  close(): Promise<void>;
}

const newClient = () => new Client({ name: 'muster-test', version: '0.0.0' });

/** The client over Streamable HTTP at `<hub>mcp`; `headers` are sent on every request (Origin, Host…). */
export async function mcpOverHttp(
  hub: { url: string },
  token?: string,
  headers: Record<string, string> = {},
): Promise<McpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL('mcp', hub.url), {
    requestInit: { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } },
  });
  const client = newClient();
  await client.connect(transport);
  return {
    client,
    stderr: () => '',
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/**
 * The client over stdio to `muster mcp` run against `hub`; `env` adds to the child's environment,
 * `bin` names an installed `muster` command to run instead of this repository's (muster-command.ts).
 */
export async function mcpOverStdio(
  hub: { url: string },
  token?: string,
  env: Record<string, string> = {},
  bin?: string,
): Promise<McpConnection> {
  const transport = new StdioClientTransport({
    command: bin ?? process.execPath,
    args: bin ? ['mcp'] : [...MUSTER_COMMAND, 'mcp'],
    cwd: ROOT,
    env: childEnv(hub.url, token, env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = newClient();
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Connects over the named transport (for `describe.each` over both). */
export const connectMcp = (name: McpTransportName, hub: { url: string }, token?: string): Promise<McpConnection> =>
  name === 'http' ? mcpOverHttp(hub, token) : mcpOverStdio(hub, token);

/** A tool call's answer, read: its text, its structuredContent, and whether it is a tool error. */
export interface ToolOutcome {
  isError: boolean;
  text: string;
  structured: any;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  return { isError: result.isError === true, text, structured: result.structuredContent };
}

/** The names of the tools the client is offered. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

/**
 * The connections a test file opens as it goes, to close together at its end, before its hub
 * stops: `connect` opens one as `who` (anonymous without), `keep` takes one opened otherwise.
 */
export function mcpConnections(hub: () => { url: string }) {
  const open: McpConnection[] = [];
  const keep = (made: McpConnection): McpConnection => (open.push(made), made);
  return {
    connect: async (transport: McpTransportName, who?: { token: string }) =>
      keep(await connectMcp(transport, hub(), who?.token)),
    keep,
    closeAll: () => Promise.all(open.map((c) => c.close().catch(() => undefined))),
  };
}
