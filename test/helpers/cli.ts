/**
 * Runs the `muster` binary as a real child process (through tsx, so no build is needed). The
 * hub under test runs in the test's process, so the CLI is spawned asynchronously: spawnSync
 * would block the hub's event loop while the CLI waits on it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `muster <args>` with MUSTER_URL set to `hubUrl` and MUSTER_TOKEN to `token` (none if undefined). */
export function runMuster(hubUrl: string, args: string[], token?: string, env: Record<string, string> = {}): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, MUSTER_URL: hubUrl, ...env };
  delete childEnv['MUSTER_TOKEN'];
  delete childEnv['MUSTER_ADMIN_TOKEN'];
  if (token !== undefined) childEnv['MUSTER_TOKEN'] = token;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
