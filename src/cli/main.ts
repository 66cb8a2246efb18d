#!/usr/bin/env node
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { clientCommands } from './client/commands.js';
import { reviewCommands } from './client/review-commands.js';
import { migrate, serve } from './serve.js';

const program = new Command('muster').description('Muster, an A2A hub').version(VERSION);

program
  .command('serve')
  .description('run the hub')
  .option('--host <host>', 'address to bind (env MUSTER_HOST)', undefined)
  .option('--port <port>', 'port (env MUSTER_PORT, default 7420)')
  .option('--db <url>', 'sqlite:<file> or postgres://… (env MUSTER_DB, default sqlite:./.muster/muster.db)')
  .option('--public-url <url>', 'the URL clients reach the hub at; required off loopback (env MUSTER_PUBLIC_URL)')
  .option('--registration <mode>', 'open or admin (env MUSTER_REGISTRATION, default open)')
  .action(serve);

program
  .command('migrate')
  .description("apply the database's pending migrations and exit (serve applies them too, at start)")
  .option('--db <url>', 'sqlite:<file> or postgres://… (env MUSTER_DB, default sqlite:./.muster/muster.db)')
  .action(migrate);

clientCommands(program);
reviewCommands(program);

program.parseAsync().catch((e: unknown) => {
  console.error(`muster: ${(e as Error).message}`);
  process.exit(1);
});
