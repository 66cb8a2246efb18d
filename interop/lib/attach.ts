// `muster attach <handle> --exec "<command>"` (docs/relay.md), the real CLI from dist.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUSTER } from './hub.js';

export const AGENT_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'muster-agent.mjs');

export interface Attached {
  proc: ChildProcess;
  /** The JSON lines attach printed, one per handled event. */
  reports(): Array<Record<string, unknown>>;
  log(): string;
  stop(): Promise<void>;
}

export async function attach(hubUrl: string, handle: string, token: string, script = AGENT_SCRIPT): Promise<Attached> {
  const proc = spawn(
    process.execPath,
    [MUSTER, 'attach', handle, '--url', hubUrl, '--token', token, '--exec', `node ${script}`, '--json'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MUSTER_URL: '', MUSTER_TOKEN: '' },
    },
  );
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`muster attach did not hold the live inbox within 20 s:\n${err}${out}`)),
      20_000,
    );
    const look = () => {
      if (err.includes('holding the live inbox')) {
        clearTimeout(timer);
        proc.stderr!.off('data', look);
        res();
      }
    };
    proc.stderr!.on('data', look);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`muster attach exited with ${code}:\n${err}${out}`));
    });
  });
  return {
    proc,
    reports: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    log: () => `${err}${out}`,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
