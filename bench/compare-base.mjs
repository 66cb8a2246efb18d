// The two builds bench/compare.mjs measures: the base ref, unpacked and built in a folder of its
// own under the system's temp dir (kept, and reused by the next comparison with the same commit),
// and the working tree, built in place.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './lib.mjs';

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** Runs a command in `cwd`, quietly; on failure throws with the end of its output. */
function run(what, cwd, command, args) {
  const started = Date.now();
  process.stdout.write(`  ${what} ... `);
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) {
    const tail = `${r.stdout}${r.stderr}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}) in ${cwd}:\n${tail}`);
  }
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** The commit `ref` names, with its one-line subject. */
export function resolveRef(ref) {
  let sha;
  try {
    sha = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`"${ref}" names no commit in ${ROOT}`);
  }
  return { ref, sha, subject: git('log', '-1', '--format=%s', sha) };
}

/** What the working tree is: HEAD's commit and whether anything differs from it. */
export function describeWorkingTree() {
  const head = git('rev-parse', 'HEAD');
  const changed = git('status', '--porcelain') !== '';
  return `working tree (HEAD ${head.slice(0, 10)}${changed ? ' + uncommitted changes' : ', no changes'})`;
}

const sameLock = (dir) =>
  readFileSync(path.join(dir, 'package-lock.json'), 'utf8') ===
  readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8');

/**
 * The base's node_modules: with the working tree's package-lock.json, a link to the working tree's
 * node_modules (the same packages, and no install); with another, its own `npm ci`. Checked on
 * every run, since the working tree's lock may have changed since the folder was made.
 */
function ensureDependencies(dir) {
  const modules = path.join(dir, 'node_modules');
  const found = lstatSync(modules, { throwIfNoEntry: false });
  const linked = found?.isSymbolicLink() ?? false;
  if (sameLock(dir)) {
    // A link made by a run from another checkout may point at a node_modules since removed: made afresh.
    if (linked) rmSync(modules);
    if (!found || linked) symlinkSync(path.join(ROOT, 'node_modules'), modules, 'dir');
    return;
  }
  if (found && !linked) return; // installed from its own lock on an earlier run
  rmSync(modules, { force: true });
  run("npm ci (the base's package-lock.json differs)", dir, 'npm', ['ci', '--no-audit', '--no-fund']);
}

/**
 * The base commit unpacked (git archive) into <tmp>/muster-bench-<sha>, its dependencies in place
 * and built; a folder already built for that commit is reused. Answers the folder.
 */
export function prepareBase({ sha }) {
  const dir = path.join(os.tmpdir(), `muster-bench-${sha}`);
  const built = path.join(dir, '.bench-built'); // written once `npm run build` succeeded there
  if (existsSync(built)) {
    console.log(`base: reusing ${dir} (built earlier)`);
    ensureDependencies(dir);
    return dir;
  }
  console.log(`base: unpacking ${sha.slice(0, 10)} into ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['archive', '--format=tar', sha], { cwd: ROOT, maxBuffer: 2 ** 30 });
  if (archive.status !== 0) throw new Error(`git archive ${sha}: ${archive.stderr}`);
  execFileSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  ensureDependencies(dir);
  run('npm run build (base)', dir, 'npm', ['run', 'build']);
  writeFileSync(built, `${sha}\n`);
  return dir;
}

/** `npm run build` in the working tree: the comparison measures what is there now, not an older dist/. */
export function buildWorkingTree() {
  console.log('working tree:');
  run('npm run build (working tree)', ROOT, 'npm', ['run', 'build']);
}
