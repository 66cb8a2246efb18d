import type { Command } from 'commander';
import { hubSettings, type HubSettings, type ServeFlags } from '../config/index.js';
import { configCommand } from './config-command.js';
import { settingOptions } from './setting-options.js';

const SERVER_COMMANDS = ['serve', 'migrate', 'config'];

/**
 * The settings table these commands declare their flags from: the core's settings and each kind's
 * (KIND_MODULES). The kinds are the hub's modules, so they are loaded only when the command line
 * names one of these commands (to run it, or for its help); otherwise the core's table stands in.
 */
async function settingsFor(argv: readonly string[]): Promise<HubSettings> {
  if (!argv.some((arg) => SERVER_COMMANDS.includes(arg))) return hubSettings([]);
  return hubSettings((await import('../kinds/server.js')).KIND_MODULES);
}

/**
 * The commands that run, prepare or explain a hub on this machine: serve, migrate and config.
 * The server is loaded only when one of them runs, so client commands start quickly.
 */
export async function serverCommands(program: Command, argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const settings = await settingsFor(argv);
  settingOptions(program.command('serve').description('run the hub'), settings).action(async (flags: ServeFlags) =>
    (await import('./serve.js')).serve(flags),
  );
  settingOptions(
    program
      .command('migrate')
      .description("apply the database's pending migrations and exit (serve applies them too, at start)"),
    settings,
    ['db'],
  ).action(async (flags: ServeFlags) => (await import('./serve.js')).migrate(flags));
  configCommand(program, settings);
}
