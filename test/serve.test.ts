import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv as env, freePort } from './helpers/nodes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = ['--import', 'tsx', 'src/cli/main.ts'];

const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

function serveOnce(args: string[], extraEnv: Record<string, string> = {}) {
  return spawnSync(process.execPath, [...cli, 'serve', ...args], { cwd: root, env: env(extraEnv), encoding: 'utf8', timeout: 15_000 });
}

function startServe(args: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [...cli, 'serve', ...args], { cwd: root, env: env() });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 15_000);
    child.stdout!.on('data', () => {
      if (out.includes('Admin token')) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    });
    child.on('exit', () => reject(new Error(`exited: ${out}`)));
  });
}

describe('muster serve', () => {
  it('starts on SQLite, prints its base URL and token file (mode 0600), and stops cleanly on SIGTERM and SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    const port = await freePort();
    const args = ['--port', String(port), '--db', `sqlite:${join(dir, 'data', 'hub.db')}`];
    const first = await startServe(args);
    expect(first.output()).toContain(`http://127.0.0.1:${port}/`);
    const tokenFile = join(dir, 'data', 'admin-token');
    expect(first.output()).toContain(tokenFile);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as any;
    expect(health.status).toBe('ok');
    const me = (await (await fetch(`http://127.0.0.1:${port}/api/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as any;
    expect(me.kind).toBe('admin');
    const exit = new Promise<number | null>((r) => first.child.on('exit', r));
    first.child.kill('SIGTERM');
    expect(await exit).toBe(0);

    const second = await startServe(args);
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(token); // the token is kept across restarts
    const exit2 = new Promise<number | null>((r) => second.child.on('exit', r));
    second.child.kill('SIGINT');
    expect(await exit2).toBe(0);
  });

  it('a port in use: one clear line, non-zero exit', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    const res = serveOnce(['--port', String(port), '--db', `sqlite:${join(dir, 'hub.db')}`]);
    blocker.close();
    expect(res.status).not.toBe(0);
    expect(res.stderr.trim().split('\n')).toEqual([`muster: port ${port} on 127.0.0.1 is already in use`]);
  });

  it('a data folder that cannot be written: one clear line, non-zero exit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    const res = serveOnce(['--port', '0', '--db', `sqlite:${join(dir, 'a-file', 'hub.db')}`]);
    expect(res.status).not.toBe(0);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/^muster: cannot .*(ENOTDIR|EEXIST)/);
  });

  it('refuses a non-loopback address without --public-url, and a bad flag, with one line each', () => {
    const open = serveOnce(['--host', '0.0.0.0', '--port', '0', '--db', 'sqlite::memory:'], { MUSTER_ADMIN_TOKEN: 'x' });
    expect(open.status).not.toBe(0);
    expect(open.stderr.trim()).toMatch(/^muster: binding to 0\.0\.0\.0 .* needs --public-url/);
    const bad = serveOnce(['--registration', 'maybe'], { MUSTER_ADMIN_TOKEN: 'x' });
    expect(bad.stderr.trim()).toBe("muster: --registration must be open or admin, not 'maybe'");
    const badEnv = serveOnce([], { MUSTER_ADMIN_TOKEN: 'x', MUSTER_SSE_HEARTBEAT_MS: 'often' });
    expect(badEnv.stderr.trim()).toBe("muster: MUSTER_SSE_HEARTBEAT_MS must be a whole number of at least 1, not 'often'");
  });

  it('a database URL it cannot use: one clear line, non-zero exit', () => {
    const res = serveOnce(['--port', '0', '--db', 'postgres://127.0.0.1:1/none'], { MUSTER_ADMIN_TOKEN: 'x' });
    expect(res.status).not.toBe(0);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr.trim()).toBe('muster: cannot open the database postgres://127.0.0.1:1/none: ECONNREFUSED');
  });

  it('a second hub on an SQLite file in use: one line naming the file and the process that holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    const file = join(dir, 'hub.db');
    const first = await startServe(['--port', '0', '--db', `sqlite:${file}`]);
    const second = serveOnce(['--port', '0', '--db', `sqlite:${file}`]);
    expect(second.status).not.toBe(0);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(`muster: the database ${file} is in use by process ${first.child.pid} `);
    const health = (await (await fetch(first.output().match(/http:\/\/127\.0\.0\.1:\d+\//)![0] + 'health')).json()) as any;
    expect(health.status).toBe('ok'); // the first hub is untouched
    first.child.kill('SIGKILL'); // a lock left by a process that is gone is taken over
    await new Promise((r) => first.child.on('exit', r));
    const third = await startServe(['--port', '0', '--db', `sqlite:${file}`]);
    expect(third.output()).toContain('Muster is listening on');
  });

  it('muster migrate applies the migrations once and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    const db = `sqlite:${join(dir, 'hub.db')}`;
    const run = () => spawnSync(process.execPath, [...cli, 'migrate', '--db', db], { cwd: root, env: env(), encoding: 'utf8', timeout: 15_000 });
    const first = run();
    expect(first.status).toBe(0);
    expect(first.stdout.trim()).toMatch(new RegExp(`^Migrated ${join(dir, 'hub.db')}: applied 1, 2, .*, 9$`));
    const again = run();
    expect(again.stdout.trim()).toBe(`${join(dir, 'hub.db')} is up to date`);
  });
});
