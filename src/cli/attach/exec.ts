/**
 * Runs the attached command once, through the shell, with one inbox event as JSON on stdin; it
 * answers with JSON on stdout. A run can be stopped (its task was canceled): the command's whole
 * process group is killed, so a shell's children go with it.
 */
import { spawn } from 'node:child_process';

export type RunOutcome = { ok: true; stdout: string } | { ok: false; why: string } | { stopped: true };

/** Stdout and stderr kept per run: an answer larger than this is not an answer. */
const MAX_OUTPUT = 4 * 1024 * 1024;

export function runCommand(
  command: string,
  input: string,
  env: Record<string, string>,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command, {
      shell: true,
      detached: true,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let outcome: RunOutcome | undefined;
    const end = (o: RunOutcome) => {
      outcome ??= o;
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const timer = setTimeout(
      () => end({ ok: false, why: `the command took longer than ${Math.round(timeoutMs / 1000)} s` }),
      timeoutMs,
    );
    const onStop = () => end({ stopped: true });
    stop.addEventListener('abort', onStop);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.length > MAX_OUTPUT) end({ ok: false, why: `the command printed more than ${MAX_OUTPUT} bytes` });
    });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-64 * 1024)));
    child.stdin.on('error', () => {}); // a command that does not read its stdin
    child.stdin.end(input);
    child.on('error', (e) => end({ ok: false, why: `the command could not start (${e.message})` }));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      if (outcome) return resolve(outcome);
      if (code === 0) return resolve({ ok: true, stdout });
      const last = stderr.trim().split('\n').pop()?.trim();
      resolve({ ok: false, why: `the command exited with ${code ?? signal}${last ? `: ${last}` : ''}` });
    });
  });
}
