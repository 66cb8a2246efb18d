/**
 * Saved logins: `{name: {url, token}}` in the user's config folder. The file holds tokens, so it
 * is written for its owner only (0600, folder 0700), and replaced whole so a reader never sees
 * half of it.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './errors.js';

export interface SavedProfile {
  url: string;
  token: string;
}

export const DEFAULT_PROFILE = 'default';

/** $XDG_CONFIG_HOME/muster, else ~/.config/muster. */
const profilesFolder = (env: NodeJS.ProcessEnv = process.env): string =>
  join(env['XDG_CONFIG_HOME'] || join(homedir(), '.config'), 'muster');

const profilesFile = (env: NodeJS.ProcessEnv = process.env): string => join(profilesFolder(env), 'profiles.json');

function readAll(): Record<string, SavedProfile> {
  const file = profilesFile();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, SavedProfile>;
  } catch {
    // reported below, as for any other shape
  }
  throw new UsageError(`${file} is not a profiles file`, `Remove it and run muster login again`, 'BAD_JSON');
}

function writeAll(profiles: Record<string, SavedProfile>): void {
  const folder = profilesFolder();
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const file = profilesFile();
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(profiles, null, 2)}\n`, { mode: 0o600 });
  chmodSync(next, 0o600);
  renameSync(next, file);
}

export const readProfile = (name: string): SavedProfile | undefined => readAll()[name];

/** The names of the saved profiles. */
export const profileNames = (): string[] => Object.keys(readAll());

export function saveProfile(name: string, profile: SavedProfile): void {
  writeAll({ ...readAll(), [name]: profile });
}

/** Forgets a profile; answers whether there was one. */
export function removeProfile(name: string): boolean {
  const { [name]: removed, ...rest } = readAll();
  if (removed) writeAll(rest);
  return removed !== undefined;
}
