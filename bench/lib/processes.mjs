// The bench's own processes: the temp dir, the children it starts (killed at exit), the clean-ups
// run at the end or on Ctrl-C, free ports and a driver's main. Nothing runs at import: the temp
// dir and exit handlers are set up on first use.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The clone the bench runs in (bench/lib/ is two levels below it). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A port nothing listens on right now, on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const children = new Set();
const cleanups = []; // async clean-ups (e.g. dropping databases), run once, last added first
let tmp;

async function runCleanups() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (err) {
      console.error(`clean-up failed: ${err.message}`);
    }
  }
}

/** The run's temp dir (logs, SQLite files), deleted at exit; set up on first call. */
export function benchTmp() {
  if (tmp) return tmp;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'muster-bench-'));
  process.on('exit', () => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  });
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      for (const c of children) c.kill('SIGKILL');
      runCleanups().finally(() => process.exit(130));
    });
  }
  return tmp;
}

/**
 * Registers an async clean-up, run by `cleanUp()` (call it in the driver's finally) or on
 * SIGINT/SIGTERM; each runs once.
 */
export function atCleanUp(fn) {
  benchTmp();
  cleanups.push(fn);
}
export const cleanUp = runCleanups;

/**
 * Starts `node <args>` with output going to a log file in the temp dir; resolves once
 * `readyUrl` answers 200, with the child's pid and a stop() (SIGTERM, SIGKILL after 5 s).
 */
export async function startChild(name, args, env, readyUrl) {
  const log = path.join(benchTmp(), `${name}.log`);
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', fd, fd],
  });
  children.add(child);
  let exited = null;
  child.on('exit', (code, sig) => {
    exited = sig ?? code;
    children.delete(child);
  });
  const tail = () => readFileSync(log, 'utf8').split('\n').slice(-20).join('\n');

  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before becoming ready:\n${tail()}`);
    try {
      if ((await fetch(readyUrl)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (exited === null && Date.now() >= deadline)
    throw new Error(`${name} not ready after 20 s (${readyUrl}):\n${tail()}`);

  return {
    pid: child.pid,
    stop: () => endChild(child),
  };
}

/** Ends a child process: SIGTERM, SIGKILL after 5 s; resolves once it has exited. */
export async function endChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(timer);
}

/** Runs a bench's main: a failure is said in one line, what it started is cleaned up, and it exits 1. */
export function runMain(main) {
  main().catch(async (err) => {
    console.error(`\nbench FAILED: ${err.message}`);
    await cleanUp();
    process.exit(1);
  });
}
