/**
 * The `muster` program: the hub's commands, the client's, and each kind's client half from the
 * list it is given (src/kinds/client.ts KIND_CLIENTS for the installed command). `muster --help`
 * shows them in groups (help.ts).
 */
import { Command } from 'commander';
import type { KindClient } from '../kinds/kind-client.js';
import { VERSION } from '../version.js';
import { attachCommand } from './attach/attach.js';
import { accountCommands } from './commands/account-commands.js';
import { agentCommands } from './commands/agent-commands.js';
import { clientCommands } from './commands/commands.js';
import { keyCommands } from './commands/key-commands.js';
import { operatorCommands } from './commands/operator-commands.js';
import { watchCommand } from './commands/watch.js';
import { demoCommand } from './demo/command.js';
import { groupHelp } from './help.js';
import { mcpCommand } from './mcp-command.js';
import { serverCommands } from './server-commands.js';

export async function buildProgram(
  kinds: readonly KindClient[],
  argv: readonly string[] = process.argv.slice(2),
): Promise<Command> {
  const program = new Command('muster').description('Muster, an A2A hub').version(VERSION);
  await serverCommands(program, argv);
  accountCommands(program);
  clientCommands(program, kinds);
  watchCommand(program);
  attachCommand(program);
  mcpCommand(program, kinds);
  for (const kind of kinds) kind.commands?.(program);
  agentCommands(program);
  keyCommands(program);
  operatorCommands(program);
  demoCommand(program, kinds);
  groupHelp(program);
  return program;
}
