/**
 * Runs the `muster` binary as a real child process (muster-command.ts says which build). The
 * hub under test runs in the test's process, so the CLI is spawned asynchronously: spawnSync
 * would block the hub's event loop while the CLI waits on it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUSTER_COMMAND } from './muster-command.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The config folder every run gets unless a test passes its own XDG_CONFIG_HOME: empty, and
 * never the real home, so no saved profile of the machine's user is read or written.
 */
const CONFIG_HOME = mkdtempSync(join(tmpdir(), 'muster-cli-config-'));

/** A fresh config folder, for a test that saves profiles (pass it as XDG_CONFIG_HOME). */
export const freshConfigHome = (): string => mkdtempSync(join(tmpdir(), 'muster-cli-config-'));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function childEnv(
  hubUrl: string | undefined,
  token: string | undefined,
  env: Record<string, string>,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: CONFIG_HOME,
    ...(hubUrl !== undefined ? { MUSTER_URL: hubUrl } : {}),
    ...env,
  };
  for (const name of ['MUSTER_TOKEN', 'MUSTER_ADMIN_TOKEN', 'MUSTER_OPERATOR_TOKEN', 'MUSTER_PROFILE'])
    if (!(name in env)) delete out[name];
  if (hubUrl === undefined && !('MUSTER_URL' in env)) delete out['MUSTER_URL'];
  if (token !== undefined) out['MUSTER_TOKEN'] = token;
  return out;
}

/** Starts `muster <args>` (see runMuster for the environment) and hands back the child, to read as it runs. */
export function spawnMuster(
  hubUrl: string | undefined,
  args: string[],
  token?: string,
  env: Record<string, string> = {},
): ChildProcess {
  return spawn(process.execPath, [...MUSTER_COMMAND, ...args], {
    cwd: ROOT,
    env: childEnv(hubUrl, token, env),
  });
}

/**
 * `muster <args>` with MUSTER_URL set to `hubUrl` (unset when undefined) and MUSTER_TOKEN to
 * `token` (none if undefined); `env` adds to or overrides the environment.
 */
export function runMuster(
  hubUrl: string | undefined,
  args: string[],
  token?: string,
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawnMuster(hubUrl, args, token, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
