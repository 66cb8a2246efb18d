// Starts the hub the README's way: `node <repo>/dist/cli/main.js serve …` as a child process on
// 127.0.0.1, a free port (--port 0: the hub picks one and logs its URL), its own data folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MUSTER = join(REPO, 'dist', 'cli', 'main.js');

export interface Hub {
  /** The hub's base URL, ending in `/`. */
  url: string;
  adminToken: string;
  proc: ChildProcess;
  /** Everything the hub wrote so far (stdout and stderr). */
  log(): string;
  stop(): Promise<void>;
}

export interface HubOptions {
  /** `sqlite:<file>` or `postgres://…`; default: an SQLite file in a fresh folder. */
  db?: string;
  /** Shared by every node of one hub. */
  adminToken?: string;
  env?: Record<string, string>;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `muster-interop-${prefix}-`));
}

export async function startHub(opts: HubOptions = {}): Promise<Hub> {
  const dir = tempDir('hub');
  const db = opts.db ?? `sqlite:${join(dir, 'muster.db')}`;
  const adminToken = opts.adminToken ?? `interop-admin-${randomBytes(16).toString('hex')}`;
  const proc = spawn(process.execPath, [MUSTER, 'serve', '--host', '127.0.0.1', '--port', '0', '--db', db], {
    cwd: dir,
    env: {
      ...process.env,
      MUSTER_ADMIN_TOKEN: adminToken,
      MUSTER_ALLOW_PRIVATE_TARGETS: '1',
      // A failed push or forward is tried again within seconds, not minutes.
      MUSTER_DELIVERY_RETRIES: '1,2,4',
      MUSTER_LOG_LEVEL: 'info',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`the hub did not start within 30 s:\n${out}`)), 30_000);
    const look = () => {
      for (const line of out.split('\n')) {
        const m = /Muster is listening on (http:\/\/\S+\/)/.exec(line);
        if (m) {
          clearTimeout(timer);
          proc.stdout!.off('data', look);
          return res(m[1]!);
        }
      }
    };
    proc.stdout!.on('data', look);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`the hub exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    adminToken,
    proc,
    log: () => out,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Agent {
  handle: string;
  token: string;
  a2a: string;
}

/** POST /api/agents: 201 with the token, shown once. */
export async function register(hub: Hub, handle: string, extra: Record<string, unknown> = {}): Promise<Agent> {
  const res = await fetch(new URL('api/agents', hub.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ handle, name: handle, ...extra }),
  });
  const body = (await res.json()) as Record<string, string>;
  if (res.status !== 201) throw new Error(`POST /api/agents ${handle} answered ${res.status}: ${JSON.stringify(body)}`);
  return { handle, token: body['token']!, a2a: body['a2a'] ?? new URL(`agents/${handle}/`, hub.url).href };
}

/** A unique handle: the hub keeps each handle for good. */
export function handle(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A REST call with a bearer token; answers status and parsed body. */
export async function rest(
  hub: Hub | string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const base = typeof hub === 'string' ? hub : hub.url;
  const res = await fetch(new URL(path, base), {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}
