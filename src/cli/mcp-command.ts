/**
 * `muster mcp`: the MCP door on stdio, for a local agent (Claude Code, Codex). It finds its hub
 * and token as every client command does (--url/MUSTER_URL, --token/MUSTER_TOKEN, the profile
 * `muster login` saved) and reaches the hub over its doors, so it works with a hub anywhere.
 * stdout carries MCP and nothing else; the one line it says goes to stderr.
 */
import type { Command } from 'commander';
import { action, client } from '../client/run.js';
import type { KindClient } from '../kinds/kind-client.js';

/** `kinds`: the kinds whose tools it serves, after its own. */
export function mcpCommand(program: Command, kinds: readonly KindClient[]): void {
  client(program, 'mcp', 'serve the MCP door on stdio, for agents that speak MCP (see docs/mcp.md)', {
    json: false, // stdout carries MCP and nothing else
  }).action(
    action(async (ctx) => {
      // Loaded only when this command runs: the MCP SDK is not needed by the other commands.
      const [{ StdioServerTransport }, { buildMcpServer }] = await Promise.all([
        import('@modelcontextprotocol/server/stdio'),
        import('../mcp/server.js'),
      ]);
      const target = ctx.target;
      const server = buildMcpServer(target, kinds);
      const transport = new StdioServerTransport();
      // Set before connect: the server chains its own close handling after it.
      const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
      await server.connect(transport);
      process.stderr.write(
        `muster mcp: serving ${target.url} ${target.token ? 'with a token' : 'without a token (public tools only)'} on stdio\n`,
      );
      await closed;
    }),
  );
}
