#!/usr/bin/env -S node --max-semi-space-size=32
// A larger young generation: a hub allocates briefly for every request, and with V8's default
// 16 MiB semi-space it spent an eighth of its time collecting (bench/run.mjs SendMessage +14 %).
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { accountCommands } from './commands/account-commands.js';
import { agentCommands } from './commands/agent-commands.js';
import { keyCommands } from './commands/key-commands.js';
import { operatorCommands } from './commands/operator-commands.js';
import { clientCommands } from './commands/commands.js';
import { KIND_CLIENTS } from '../kinds/client.js';
import { runProgram } from '../client/run.js';
import { watchCommand } from './commands/watch.js';
import { attachCommand } from './attach/attach.js';
import { serverCommands } from './server-commands.js';
import { demoCommand } from './demo/command.js';
import { mcpCommand } from './mcp-command.js';

// Output piped into a reader that stops early (`muster … | head`) ends the command quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(0);
});

const program = new Command('muster').description('Muster, an A2A hub').version(VERSION);

await serverCommands(program);
accountCommands(program);
clientCommands(program, KIND_CLIENTS);
watchCommand(program);
attachCommand(program);
mcpCommand(program);
for (const kind of KIND_CLIENTS) kind.commands?.(program);
agentCommands(program);
keyCommands(program);
operatorCommands(program);
demoCommand(program, KIND_CLIENTS);

runProgram(program).catch((e: unknown) => {
  console.error(`muster: ${(e as Error).message}`);
  process.exit(1);
});
