import type { Command } from 'commander';
import { ConfigError, type Explained, type HubSettings, type ServeFlags } from '../config/index.js';
import { CliError, EXIT, printError } from '../client/errors.js';
import { settingOptions } from './setting-options.js';

/** `muster config`: the settings `serve` would run with, and where each came from; secrets masked. */
export function configCommand(program: Command, settings: HubSettings): void {
  settingOptions(
    program
      .command('config')
      .description('print the settings serve would run with and where each came from (secrets masked)'),
    settings,
  )
    .option('--json', 'one JSON object: each setting with its value and origin')
    .action((options: ServeFlags & { json?: boolean }) => printConfig(settings, options));
}

function printConfig(settings: HubSettings, { json, ...flags }: ServeFlags & { json?: boolean }): void {
  let explained: Explained[];
  try {
    explained = settings.explainConfig(flags, process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return printError(new CliError('BAD_CONFIG', e.message, EXIT.usage), json === true);
  }
  process.stdout.write(json ? `${JSON.stringify(asObject(explained), null, 2)}\n` : asTable(explained));
}

const asObject = (explained: Explained[]) =>
  Object.fromEntries(explained.map(({ key, value, origin }) => [key, { value, ...origin }]));

const originText = ({ origin }: Explained) =>
  origin.from === 'default' ? 'default' : `${origin.from} ${origin.file ?? origin.name}`;

function asTable(explained: Explained[]): string {
  const rows = explained.map((e) => [e.key, e.value ?? 'not set', originText(e)] as const);
  const width = (i: 0 | 1) => Math.max(...rows.map((r) => r[i].length));
  const [keys, values] = [width(0), Math.min(width(1), 48)];
  return `${rows.map(([key, value, from]) => `${key.padEnd(keys)}  ${value.padEnd(values)}  ${from}`).join('\n')}\n`;
}
