import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DatabaseInUse, holdExclusively } from './ownership.js';
import { openSqliteStore } from './sqlite-store.js';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'muster-lock-')), 'hub.db');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const ownership = pathToFileURL(fileURLToPath(new URL('./ownership.ts', import.meta.url))).href;

/** A process that tries to hold the file for `holdMs`: answers 'held' or 'refused'. */
function contender(file: string, holdMs: number): Promise<string> {
  const script = `const { holdExclusively } = await import(${JSON.stringify(ownership)});
    try { holdExclusively(${JSON.stringify(file)}); console.log('held'); setTimeout(() => process.exit(0), ${holdMs}); }
    catch (e) { console.log(e.name === 'DatabaseInUse' ? 'refused' : 'error ' + e.message); }`;
  const child = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return new Promise((resolve) => child.on('exit', () => resolve(out.trim())));
}

describe('one process per SQLite file', () => {
  it('refuses a second store on the file in the same process, naming the holder, until the first closes', async () => {
    const file = freshFile();
    const first = openSqliteStore(file);
    expect(() => openSqliteStore(file)).toThrow(DatabaseInUse);
    expect(() => openSqliteStore(file)).toThrow(new RegExp(`in use by process ${process.pid} on `));
    await first.close();
    await openSqliteStore(file).close(); // free again
  });

  it('lets exactly one of several processes starting at once hold the file, and frees it when the holder dies', async () => {
    for (let round = 0; round < 3; round++) {
      const file = freshFile();
      const outcomes = await Promise.all([contender(file, 800), contender(file, 800), contender(file, 800)]);
      expect(outcomes.sort(), `round ${round}`).toEqual(['held', 'refused', 'refused']);
      // All three have exited (the holder without closing anything): the operating system freed the lock.
      const release = holdExclusively(file);
      release();
    }
  }, 30_000);
});
