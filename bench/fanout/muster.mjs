// The one Muster process the fan-out bench measures: started from ROOT's dist/ on a SQLite file in
// a temp dir (both gone at exit), and its memory read from /proc.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { endChild, freePort } from '../lib.mjs';
import { sleep } from './http.mjs';
import { ADMIN_TOKEN, N, ROOT } from './settings.mjs';

let child;

/** A temp dir for Muster's database and log; it and Muster are gone when this process exits. */
function tempDir() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'muster-fanout-'));
  process.on('exit', () => {
    child?.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
  return tmp;
}

/**
 * Starts Muster (once) and waits until it answers /health: { port, base, pid, tail, alive, stop },
 * `tail` the last lines of its log.
 */
export async function startMuster() {
  const tmp = tempDir();
  const main = path.join(ROOT, 'dist/cli/main.js');
  if (!existsSync(main)) throw new Error(`${main} not found: run "npm run build" first`);
  const port = await freePort();
  const log = path.join(tmp, 'muster.log');
  const fd = openSync(log, 'w');
  const nodeArgs = (process.env.FANOUT_MUSTER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  child = spawn(
    process.execPath,
    [...nodeArgs, main, 'serve', '--port', String(port), '--db', `sqlite:${path.join(tmp, 'x.db')}`],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        MUSTER_ADMIN_TOKEN: ADMIN_TOKEN,
        MUSTER_RATE_LIMITS: 'off',
        MUSTER_LOG_LEVEL: 'warn',
        MUSTER_MAX_STREAMS_PER_CALLER: String(N + 100),
      },
      stdio: ['ignore', fd, fd],
    },
  );
  let exited = null;
  child.on('exit', (code, sig) => {
    exited = sig ?? code;
  });
  const tail = () => readFileSync(log, 'utf8').split('\n').slice(-20).join('\n');
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited !== null) throw new Error(`muster exited (${exited}) before becoming ready:\n${tail()}`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`muster not ready after 20 s:\n${tail()}`);
    await sleep(100);
  }
  return {
    port,
    base,
    pid: child.pid,
    tail,
    alive: () => exited === null,
    stop: () => endChild(child),
  };
}

/** VmRSS / VmHWM of a process, in kB. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1]);
  return { rssKB: kb('VmRSS'), hwmKB: kb('VmHWM') };
}
