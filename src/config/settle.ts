/**
 * How one setting is settled from its sources: a flag wins over the environment, which wins over
 * the file (--config or MUSTER_CONFIG), which wins over the default. resolve.ts settles the hub's
 * whole table with it; a client that checks as the hub does settles a kind's own entries with
 * `settleEntries`, without the table.
 */
import { ConfigError } from './config.js';
import {
  settingOf,
  type Declarations,
  type Origin,
  type Setting,
  type SettledOf,
  type SettledSetting,
} from './declared.js';
import { readConfigFile, type FileSettings } from './file.js';

/** The flags of `serve` and `config` as commander hands them over: each setting's key, and the file. */
export type ServeFlags = Readonly<Record<string, string | undefined>> & { config?: string };

export interface Sources {
  flags: ServeFlags;
  env: NodeJS.ProcessEnv;
  file?: { path: string; settings: FileSettings };
}

/** The sources; `keys`: the settings a file may hold (another key is refused), or undefined to take the file's keys as they are. */
export function sourcesFrom(flags: ServeFlags, env: NodeJS.ProcessEnv, keys: readonly string[] | undefined): Sources {
  const path = flags.config ?? (env['MUSTER_CONFIG'] || undefined);
  return { flags, env, ...(path ? { file: { path, settings: readConfigFile(path, keys) } } : {}) };
}

/** The one rule: a flag wins over the environment, which wins over the file, which wins over the default. */
function pick(setting: Setting<unknown>, { flags, env, file }: Sources): Origin {
  const key = setting.key;
  const flag = setting.flag ? flags[key] : undefined;
  if (flag !== undefined) return { from: 'flag', name: setting.flag!, text: flag };
  const variable = env[setting.env];
  if (variable !== undefined && variable !== '') return { from: 'env', name: setting.env, text: variable };
  const written = file?.settings[key];
  if (written !== undefined) return { from: 'file', file: file!.path, name: `${key} in ${file!.path}`, text: written };
  return {
    from: 'default',
    name: setting.flag ?? setting.env,
    ...(setting.fallback !== undefined ? { text: setting.fallback } : {}),
  };
}

/** One setting from its sources; a value it does not allow is a ConfigError naming it as the operator wrote it. */
export function settle<T>(setting: Setting<T>, sources: Sources): SettledSetting<T> {
  const origin = pick(setting as Setting<unknown>, sources);
  if (origin.text === undefined) return { value: undefined, origin };
  const value = setting.parse(origin.text);
  if (value === undefined) {
    const given = setting.secret ? '' : `, not '${origin.text}'`; // a secret is never echoed
    const refusal = setting.refusal?.(origin.text) ?? `must be ${setting.allowed}${given}`;
    throw new ConfigError(`${origin.name} ${refusal}`);
  }
  return { value, origin };
}

/** Some entries of the table (a kind's), settled from the environment and MUSTER_CONFIG's file as `serve` would. */
export function settleEntries<D extends Declarations>(entries: D, env: NodeJS.ProcessEnv): SettledOf<D> {
  const sources = sourcesFrom({}, env, undefined);
  return Object.fromEntries(
    Object.entries(entries).map(([key, declared]) => [key, settle(settingOf(key, declared), sources)]),
  ) as SettledOf<D>;
}
