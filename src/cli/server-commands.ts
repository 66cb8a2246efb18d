import type { Command } from 'commander';
import type { ServeFlags } from '../config/index.js';
import { configCommand } from './config-command.js';
import { settingOptions } from './setting-options.js';

/**
 * The commands that run, prepare or explain a hub on this machine: serve, migrate and config.
 * The server is loaded only when one of them runs, so client commands start quickly.
 */
export function serverCommands(program: Command): void {
  settingOptions(program.command('serve').description('run the hub')).action(async (flags: ServeFlags) => (await import('./serve.js')).serve(flags));
  settingOptions(program.command('migrate').description("apply the database's pending migrations and exit (serve applies them too, at start)"), ['db']).action(
    async (flags: ServeFlags) => (await import('./serve.js')).migrate(flags),
  );
  configCommand(program);
}
