import type { Command } from 'commander';
import type { SettingsTable } from '../config/index.js';

/**
 * Declares a flag for each of `keys` that has one, and --config, all from the settings table:
 * the help names each setting's variable, file key and default, so `--help` lists every setting.
 * No commander defaults: a flag left out must stay undefined for the environment and file to count.
 */
export function settingOptions(command: Command, table: SettingsTable, keys: readonly string[] = table.keys): Command {
  command.option(
    '--config <file>',
    'a JSON or YAML file of settings, under the file keys named below [env MUSTER_CONFIG]',
  );
  const settings = keys.map((key) => table.settings[key]!);
  for (const s of settings) {
    if (s.flag)
      command.option(
        `${s.flag} ${s.arg ?? '<value>'}`,
        `${s.help} [env ${s.env}, file ${s.key}${s.fallback !== undefined ? `, default ${s.fallback}` : ''}]`,
      );
  }
  const unflagged = settings.filter((s) => !s.flag).map((s) => `  ${s.env} (file: ${s.key}): ${s.help}`);
  return command.addHelpText(
    'after',
    [
      '',
      'Flags win over the environment, which wins over the --config file, which wins over the defaults.',
      ...(unflagged.length ? ['Settings without a flag (kept out of the process list):', ...unflagged] : []),
    ].join('\n'),
  );
}
