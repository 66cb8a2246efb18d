/**
 * How the tests start this repository's `muster` command: node's arguments before the command's
 * own. The build in dist/ when it is newer than every file under src/ (installing builds it, so a
 * clean clone runs the build), else the sources through tsx, so a test never runs code older than
 * the sources. Through tsx a start costs about a second more CPU, compiling the sources as it
 * loads them, and the suite starts the command hundreds of times. Paths are absolute, so a child
 * may run in a working folder of its own.
 */
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILT = join(ROOT, 'dist/cli/main.js');

/** The newest modification time (ms) of the files under `dir`. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((most, entry) => Math.max(most, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

function builtIsCurrent(): boolean {
  try {
    return statSync(BUILT).mtimeMs > newest(join(ROOT, 'src'));
  } catch {
    return false; // no build
  }
}

/** The arguments node runs a TypeScript entry point with, through tsx. */
export const throughTsx = (main: string): string[] => [
  '--import',
  pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
  main,
];

/** `node ...MUSTER_COMMAND <args>` runs `muster <args>`. */
export const MUSTER_COMMAND: readonly string[] = builtIsCurrent() ? [BUILT] : throughTsx(join(ROOT, 'src/cli/main.ts'));
