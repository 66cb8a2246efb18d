import { readFileSync } from 'node:fs';

/** What the hub tells of itself from its package.json; src/ and dist/ both sit one level below it. */
export const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
  description: string;
  homepage?: string;
};

/** The package version. */
export const VERSION: string = PACKAGE.version;
