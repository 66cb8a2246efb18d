/**
 * A setting as its owner declares it, and as it is once settled: the leaf of the settings table
 * (settings.ts), which a kind imports to declare its own settings without importing the table.
 */
import { ConfigError } from './config.js';

export interface Setting<T> {
  key: string;
  /** Undefined for a secret that must not show in `ps`: environment and file only. */
  flag?: string;
  /** The flag's value in its help: `<port>`, `<on|off>`. */
  arg?: string;
  env: string;
  /** What the operator may write, to finish "… must be": "open or admin". */
  allowed: string;
  /** The value, or undefined when `text` is not allowed. */
  parse(text: string): T | undefined;
  /** Why `text` is refused, to follow the setting's name, where there is more to say than `allowed`. */
  refusal?(text: string): string | undefined;
  /** As the operator would write it; undefined when the setting is unset unless given. */
  fallback?: string;
  secret?: boolean;
  help: string;
  /** The value as `muster config` shows it (default: its text). */
  show?(value: T): string;
}

/** A setting as a table entry declares it (key, flag and variable are made from the key). */
export interface Declared<T> extends Omit<Setting<T>, 'key' | 'flag' | 'env'> {
  /** False for a secret: no flag. */
  flag?: false;
}

/** Entries of the table by key, each value's type checked against its parse. */
export type Declarations = Readonly<Record<string, Declared<any>>>; // any: each entry's own value type is checked against its parse

/** The value an entry's parse gives. */
export type ValueOf<D extends Declared<any>> = Exclude<ReturnType<D['parse']>, undefined>;

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const envName = (key: string) => `MUSTER_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

/** The setting an entry declares under `key`: its flag is the key in kebab-case, its variable MUSTER_ and the key in capitals. */
export function settingOf<T>(key: string, declared: Declared<T>): Setting<T> {
  const { flag, ...rest } = declared;
  return { ...rest, key, env: envName(key), ...(flag === false ? {} : { flag: `--${kebab(key)}` }) };
}

/** Where a setting's value came from, and its name there as the operator wrote it. */
export interface Origin {
  from: 'flag' | 'env' | 'file' | 'default';
  /** The config file, when the value came from it. */
  file?: string;
  /** "--port", "MUSTER_PORT", "port in muster.yaml"; for a default, the flag (or variable). */
  name: string;
  /** The value as written: kept out of `muster config`, since it may be a secret. */
  text?: string;
}

/** One setting once settled: its value (undefined when unset and without a default) and where it came from. */
export interface SettledSetting<T> {
  value: T | undefined;
  origin: Origin;
}

/** Each entry of `D` settled, as a check across settings reads them (a kind's settingsFrom). */
export type SettledOf<D extends Declarations> = { [K in keyof D]: SettledSetting<ValueOf<D[K]>> };

/** "MUSTER_REVIEW_MIN_DEADLINE_S (60)", or "the default --review-max-deadline-s (604800)": a setting named in a check across settings. */
export const described = ({ origin }: { origin: Origin }) =>
  `${origin.from === 'default' ? 'the default ' : ''}${origin.name} (${origin.text})`;

export { ConfigError };
