/**
 * `npm install` on Node 20 warns of no engine: every package the lock file installs accepts the
 * Node running the suite (npm checks the running Node, and this suite runs on Node 20 here).
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));

describe('engines', () => {
  it('every locked package accepts the Node running the tests, a Node the project supports', () => {
    const lock = read('package-lock.json') as {
      packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
    };
    expect(semver.satisfies(process.version, read('package.json').engines.node)).toBe(true);
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !p.optional && !Array.isArray(p.engines) && p.engines?.node !== undefined)
      .filter(([, p]) => {
        const range = (p.engines as { node: string }).node;
        return !semver.satisfies(process.version, range);
      })
      .map(([path, p]) => `${path} (node ${(p.engines as { node: string }).node})`);
    expect(refusing).toEqual([]);
  });
});
