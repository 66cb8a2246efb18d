/**
 * The sources the test/config*.test.ts parts hand the settings table: config files written to a
 * temp folder of the worker's own, and the one-line refusal that bad sources get.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { resolveConfig } from './config.js';

/** The folder configFile writes to. */
export const configDir = mkdtempSync(join(tmpdir(), 'muster-config-'));

/** Writes `text` to the file `name` in configDir: its path. */
export function configFile(name: string, text: string): string {
  const file = join(configDir, name);
  writeFileSync(file, text);
  return file;
}

/** The ConfigError's message for these sources (fails the test if they are accepted). */
export function refusal(flags: Record<string, string>, env: Record<string, string>): string {
  try {
    resolveConfig(flags, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}
