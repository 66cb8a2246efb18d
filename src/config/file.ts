import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { ConfigError } from './config.js';

/**
 * The YAML parser, loaded when a YAML file is read: every CLI command builds the settings table,
 * and few read a file (the parser is 73 modules, a fifth of what `muster --help` loaded with it).
 */
const parseYaml = (text: string): unknown =>
  (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);

/** A config file's settings as written: each value as text, the way a flag or variable would carry it. */
export type FileSettings = Partial<Record<string, string>>;

/**
 * Reads a JSON or YAML file of settings (keys are the settings' camelCase keys); odd values are
 * refused, and keys not among `keys` (the table's), unless `keys` is undefined.
 */
export function readConfigFile(file: string, keys: readonly string[] | undefined): FileSettings {
  const kind = extname(file).toLowerCase();
  if (!['.json', '.yaml', '.yml'].includes(kind))
    throw new ConfigError(`--config must name a .json, .yaml or .yml file, not '${file}'`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `cannot read the config file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let content: unknown;
  try {
    content = kind === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    const what = kind === '.json' ? 'JSON' : 'YAML';
    throw new ConfigError(`${file} is not valid ${what}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (content === null || content === undefined) return {}; // an empty file sets nothing
  if (typeof content !== 'object' || Array.isArray(content))
    throw new ConfigError(`${file} must hold settings by name, such as port: 7420`);
  const settings: FileSettings = {};
  for (const [key, value] of Object.entries(content)) {
    if (keys && !keys.includes(key)) throw new ConfigError(`${file}: unknown setting '${key}'${nearest(key, keys)}`);
    const text = asText(value);
    if (text === undefined)
      throw new ConfigError(`${key} in ${file} must be a single value or a list, not ${JSON.stringify(value)}`);
    settings[key] = text;
  }
  return settings;
}

/** Numbers, booleans and lists as a flag would spell them: 7420, true, "60,300". */
function asText(value: unknown): string | undefined {
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (scalar(value)) return String(value);
  if (Array.isArray(value) && value.every(scalar)) return value.join(',');
  return undefined;
}

/** "; did you mean 'publicUrl'?" for a key close to a known one: the same letters in another case or spelling, or one or two typos. */
function nearest(key: string, keys: readonly string[]): string {
  const squash = (k: string) =>
    k
      .toLowerCase()
      .replace(/^muster_/, '')
      .replace(/[-_]/g, '');
  let best: { key: string; distance: number } | undefined;
  for (const known of keys) {
    const distance = squash(known) === squash(key) ? 0 : editDistance(known.toLowerCase(), key.toLowerCase());
    if (!best || distance < best.distance) best = { key: known, distance };
  }
  return best && best.distance <= 2 ? `; did you mean '${best.key}'?` : `; the settings are ${keys.join(', ')}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}
