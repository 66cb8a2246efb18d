import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/store/sqlite/migrations.js';
import { testDatabase, testDialect } from './helpers/database.js';
import { MUSTER_COMMAND } from './helpers/muster-command.js';
import { cleanEnv as env, freePort } from './helpers/nodes.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function serveOnce(args: string[], extraEnv: Record<string, string> = {}) {
  return spawnSync(process.execPath, [...MUSTER_COMMAND, 'serve', ...args], {
    cwd: root,
    env: env(extraEnv),
    encoding: 'utf8',
    timeout: 15_000,
  });
}

function startServe(args: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [...MUSTER_COMMAND, 'serve', ...args], { cwd: root, env: env() });
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
    const me = (await (
      await fetch(`http://127.0.0.1:${port}/api/me`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as any;
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

  // Each bad data path answers one line and exit 2 (spawnSync's timeout would leave the status null).
  it.each([
    [
      'a file in the path',
      (dir: string) => join(dir, 'a-file', 'hub.db'),
      (dir: string) => `${join(dir, 'a-file')} is a file, not a folder`,
    ],
    [
      'a folder that cannot be made (/proc)',
      () => '/proc/muster-x/hub.db',
      () => 'cannot make the folder /proc/muster-x: /proc does not take new folders (ENOENT)',
    ],
    [
      'a folder that takes no files (/proc)',
      () => '/proc/hub.db',
      () => 'cannot write /proc/hub.db.lock: /proc does not take new files (ENOENT)',
    ],
    [
      'an unwritable folder (/sys)',
      () => '/sys/hub.db',
      () => 'cannot write /sys/hub.db.lock: no permission to write in /sys (EACCES)',
    ],
    // root is told EPERM, other users EACCES
    [
      'a folder that may not be made (/sys)',
      () => '/sys/muster-x/hub.db',
      () => /cannot make the folder \/sys\/muster-x: no permission to write in \/sys \((EPERM|EACCES)\)/,
    ],
    [
      'a folder where the file should be',
      (dir: string) => dir,
      (dir: string) => `cannot write ${dir}: it is a folder, not a file (EISDIR)`,
    ],
  ])('a data path it cannot use, %s: one plain line, exit 2', (_, path, says) => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    const res = serveOnce(['--port', '0', '--db', `sqlite:${path(dir)}`]);
    expect(res.status).toBe(2);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const reason = says(dir);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${escaped(`muster: cannot open the database ${path(dir)}: `)}${typeof reason === 'string' ? escaped(reason) : reason.source}$`,
      ),
    );
  });

  it('refuses a non-loopback address without --public-url, and a bad flag, with one line each', () => {
    const open = serveOnce(['--host', '0.0.0.0', '--port', '0', '--db', 'sqlite::memory:'], {
      MUSTER_ADMIN_TOKEN: 'x',
    });
    expect(open.status).not.toBe(0);
    expect(open.stderr.trim()).toMatch(/^muster: binding to 0\.0\.0\.0 .* needs --public-url/);
    const bad = serveOnce(['--registration', 'maybe'], { MUSTER_ADMIN_TOKEN: 'x' });
    expect(bad.stderr.trim()).toBe("muster: --registration must be open or admin, not 'maybe'");
    const badEnv = serveOnce([], { MUSTER_ADMIN_TOKEN: 'x', MUSTER_SSE_HEARTBEAT_MS: 'often' });
    expect(badEnv.stderr.trim()).toBe(
      "muster: MUSTER_SSE_HEARTBEAT_MS must be a whole number of at least 1, not 'often'",
    );
  });

  it('a database URL it cannot use: one clear line, non-zero exit', () => {
    const res = serveOnce(['--port', '0', '--db', 'postgres://127.0.0.1:1/none'], { MUSTER_ADMIN_TOKEN: 'x' });
    expect(res.status).not.toBe(0);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr.trim()).toBe(
      'muster: cannot open the database postgres://127.0.0.1:1/none: nothing accepts connections at 127.0.0.1:1 (ECONNREFUSED); is PostgreSQL running there, and listening on that address and port?',
    );
  });

  it('a second hub on an SQLite file in use: one line naming the file and the process that holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    const file = join(dir, 'hub.db');
    const first = await startServe(['--port', '0', '--db', `sqlite:${file}`]);
    const second = serveOnce(['--port', '0', '--db', `sqlite:${file}`]);
    expect(second.status).not.toBe(0);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(`muster: the database ${file} is in use by process ${first.child.pid} `);
    const health = (await (
      await fetch(first.output().match(/http:\/\/127\.0\.0\.1:\d+\//)![0] + 'health')
    ).json()) as any;
    expect(health.status).toBe('ok'); // the first hub is untouched
    first.child.kill('SIGKILL'); // a lock left by a process that is gone is taken over
    await new Promise((r) => first.child.on('exit', r));
    const third = await startServe(['--port', '0', '--db', `sqlite:${file}`]);
    expect(third.output()).toContain('Muster is listening on');
  });

  it('muster migrate applies the migrations once and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    const db = `sqlite:${join(dir, 'hub.db')}`;
    const run = () =>
      spawnSync(process.execPath, [...MUSTER_COMMAND, 'migrate', '--db', db], {
        cwd: root,
        env: env(),
        encoding: 'utf8',
        timeout: 15_000,
      });
    const first = run();
    expect(first.status).toBe(0);
    expect(first.stdout.trim()).toBe(
      `Migrated ${join(dir, 'hub.db')}: applied ${MIGRATIONS.map((m) => m.version).join(', ')}`,
    );
    const again = run();
    expect(again.stdout.trim()).toBe(`${join(dir, 'hub.db')} is up to date`);
    const nowhere = spawnSync(
      process.execPath,
      [...MUSTER_COMMAND, 'migrate', '--db', 'sqlite:/proc/muster-x/hub.db'],
      {
        cwd: root,
        env: env(),
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    expect(nowhere.status).toBe(2);
    expect(nowhere.stderr.trim().split('\n')).toEqual([
      'muster: cannot migrate /proc/muster-x/hub.db: cannot make the folder /proc/muster-x: /proc does not take new folders (ENOENT)',
    ]);
  });
});

describe('muster serve --config', () => {
  it("starts with the file's port, registration and database (the flags and environment left out)", async () => {
    const db = await testDatabase('serve-config');
    const port = await freePort();
    const file = join(db.dir, 'muster.yaml');
    writeFileSync(
      file,
      [`port: ${port}`, 'registration: admin', `db: ${db.url}`, 'adminToken: file-admin-token', ''].join('\n'),
    );
    const hub = await startServe(['--config', file]);
    try {
      const base = `http://127.0.0.1:${port}/`;
      expect(hub.output()).toContain(base);
      expect(((await (await fetch(`${base}health`)).json()) as any).store).toBe(testDialect);
      const register = (headers: Record<string, string>) =>
        fetch(`${base}api/agents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ handle: 'from-file', name: 'From file' }),
        });
      expect((await register({})).status).toBe(401); // admin registration, from the file
      expect((await register({ authorization: 'Bearer file-admin-token' })).status).toBe(201);
    } finally {
      const exit = new Promise((r) => hub.child.on('exit', r));
      hub.child.kill('SIGTERM');
      await exit;
      await db.drop();
    }
  });

  it('an unknown key or a bad value in the file, or MUSTER_RATE_LIMITS=maybe: one line, exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-serve-'));
    const typo = join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ registraton: 'admin' }));
    const unknown = serveOnce(['--config', typo]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([
      `muster: ${typo}: unknown setting 'registraton'; did you mean 'registration'?`,
    ]);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'registration: sometimes\n');
    const badValue = serveOnce([], { MUSTER_CONFIG: bad });
    expect(badValue.status).toBe(2);
    expect(badValue.stderr.trim().split('\n')).toEqual([
      `muster: registration in ${bad} must be open or admin, not 'sometimes'`,
    ]);
    const maybe = serveOnce(['--port', '0', '--db', `sqlite:${join(dir, 'hub.db')}`], { MUSTER_RATE_LIMITS: 'maybe' });
    expect(maybe.status).toBe(2);
    expect(maybe.stderr.trim().split('\n')).toEqual(["muster: MUSTER_RATE_LIMITS must be on or off, not 'maybe'"]);
  });

  // On PostgreSQL the generated admin token is kept in ./.muster of the working folder.
  it.runIf(testDialect === 'postgres')(
    'an admin-token folder it cannot make (PostgreSQL): one plain line, exit 2',
    async () => {
      const db = await testDatabase('serve-token');
      try {
        const res = spawnSync(process.execPath, [...MUSTER_COMMAND, 'serve', '--port', '0', '--db', db.url], {
          cwd: '/sys',
          env: env(),
          encoding: 'utf8',
          timeout: 15_000,
        });
        expect(res.status).toBe(2);
        expect(res.stderr.trim().split('\n')).toHaveLength(1);
        expect(res.stderr.trim()).toMatch(
          /^muster: cannot write the admin token to \/sys\/\.muster\/admin-token: cannot make the folder \/sys\/\.muster: no permission to write in \/sys \((EPERM|EACCES)\)$/,
        );
      } finally {
        await db.drop();
      }
    },
  );
});
