#!/usr/bin/env node
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { clientCommands } from './client/commands.js';
import { reviewCommands } from './client/review-commands.js';
import { serverCommands } from './serve.js';

const program = new Command('muster').description('Muster, an A2A hub').version(VERSION);

serverCommands(program);
clientCommands(program);
reviewCommands(program);

program.parseAsync().catch((e: unknown) => {
  console.error(`muster: ${(e as Error).message}`);
  process.exit(1);
});
