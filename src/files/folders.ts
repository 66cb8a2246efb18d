/**
 * Making the hub's data folder and files, with a plain reason when it cannot. Node's
 * `mkdirSync(…, { recursive: true })` is not used: where mkdir answers ENOENT under a folder that
 * exists (as in /proc), it retries forever in one synchronous call, so the process neither
 * answers nor heeds SIGTERM. SQLite reduces every failure to "unable to open database file",
 * so a file is created here first to learn the system's reason.
 */
import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A folder or file the hub needs and cannot have; the message says why, in plain words. */
export class PathProblem extends Error {
  override name = 'PathProblem';
}

type Kind = 'folder' | 'file' | 'missing';

function kindOf(path: string): Kind {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw new PathProblem(`cannot look at ${path}: ${why(e, dirname(path), 'folders')}`);
  }
}

/** The system's refusal in words: `where` is what refused (the folder asked to take a new entry, or the file). */
function why(e: unknown, where: string, what: 'folders' | 'files'): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const words: Record<string, string> = {
    EACCES: `no permission to write in ${where}`,
    EPERM: `no permission to write in ${where}`,
    EROFS: `${where} is on a read-only file system`,
    ENOENT: `${where} does not take new ${what}`,
    ENOSPC: `no space left on the device of ${where}`,
    EISDIR: 'it is a folder, not a file',
  };
  return `${words[code] ?? (e as Error).message}${code ? ` (${code})` : ''}`;
}

/** Makes `folder` and its missing parents one level at a time; a file in the way, or a refusal, is a PathProblem. */
export function makeFolder(folder: string): void {
  const missing: string[] = [];
  for (let at = resolve(folder); ; at = dirname(at)) {
    const kind = kindOf(at);
    if (kind === 'folder') break;
    if (kind === 'file') throw new PathProblem(`${at} is a file, not a folder`);
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && kindOf(path) === 'folder') continue; // made meanwhile by another process
      throw new PathProblem(`cannot make the folder ${path}: ${why(e, dirname(path), 'folders')}`);
    }
  }
}

/** Creates `file` if it is missing (leaving it as it is otherwise), so that a file the hub cannot have is refused in words. */
export function touchFile(file: string): void {
  try {
    closeSync(openSync(file, 'a'));
  } catch (e) {
    const refused = kindOf(file) === 'missing' ? dirname(file) : file; // the folder would not take it, or the file itself is barred
    throw new PathProblem(`cannot write ${file}: ${why(e, refused, 'files')}`);
  }
}
