/**
 * `muster config` shows the effective settings, each with where it came from and secrets masked,
 * or refuses a bad one in one line; `muster serve --help` lists every setting.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTINGS, SETTING_KEYS } from './helpers/config.js';
import { configFile } from './helpers/config-sources.js';
import { MUSTER_COMMAND } from './helpers/muster-command.js';
import { cleanEnv } from './helpers/nodes.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('muster config', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [...MUSTER_COMMAND, 'config', ...args], {
      cwd: root,
      env: cleanEnv(env),
      encoding: 'utf8',
      timeout: 20_000,
    });
  const secret = 'the-admin-secret-8c1f';
  const file = configFile('shown.yaml', ['port: 1111', `adminToken: ${secret}`, 'registration: admin', ''].join('\n'));

  it('prints every setting, its value and where it came from, with the admin token masked', () => {
    const res = run(['--config', file, '--port', '2222'], {
      MUSTER_LOG_LEVEL: 'debug',
      MUSTER_DB: 'postgres://muster:pa55word@db.example:5432/muster',
    });
    expect(res.status).toBe(0);
    expect(res.stdout).not.toContain(secret);
    expect(res.stdout).not.toContain('pa55word');
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(SETTING_KEYS.length);
    expect(lines.find((l) => l.startsWith('port '))).toMatch(/^port\s+2222\s+flag --port$/);
    expect(lines.find((l) => l.startsWith('logLevel '))).toMatch(/^logLevel\s+debug\s+env MUSTER_LOG_LEVEL$/);
    expect(lines.find((l) => l.startsWith('registration '))).toMatch(
      new RegExp(`^registration\\s+admin\\s+file ${file}$`),
    );
    expect(lines.find((l) => l.startsWith('adminToken '))).toMatch(/^adminToken\s+set \(hidden\)\s+file /);
    expect(lines.find((l) => l.startsWith('db '))).toContain('postgres://muster:***@db.example:5432/muster');
    expect(lines.find((l) => l.startsWith('metrics '))).toMatch(/^metrics\s+admin\s+default$/);
  });

  it('--json: one object of settings, the secret masked there too', () => {
    const res = run(['--config', file, '--json'], { MUSTER_ADMIN_TOKEN: secret });
    expect(res.status).toBe(0);
    expect(res.stdout).not.toContain(secret);
    const shown = JSON.parse(res.stdout);
    expect(Object.keys(shown)).toEqual(SETTING_KEYS);
    expect(shown.port).toMatchObject({ value: '1111', from: 'file', file });
    expect(shown.adminToken).toMatchObject({ value: 'set (hidden)', from: 'env', name: 'MUSTER_ADMIN_TOKEN' });
    expect(shown.publicUrl).toMatchObject({ value: null, from: 'default' });
  });

  it('a bad setting: one line and exit 2, or the error document with --json', () => {
    const res = run([], { MUSTER_RATE_LIMITS: 'maybe' });
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toEqual(["muster: MUSTER_RATE_LIMITS must be on or off, not 'maybe'"]);
    const json = run(['--json'], { MUSTER_RATE_LIMITS: 'maybe' });
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'BAD_CONFIG', message: "MUSTER_RATE_LIMITS must be on or off, not 'maybe'" },
    });
  });

  it('serve --help lists every setting: its flag, its variable, its file key and its default', () => {
    const res = spawnSync(process.execPath, [...MUSTER_COMMAND, 'serve', '--help'], {
      cwd: root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(res.status).toBe(0);
    const help = res.stdout.replace(/\s+/g, ' ');
    for (const key of SETTING_KEYS) {
      const s = SETTINGS[key]!;
      if (s.flag) expect(help).toContain(`${s.flag} `);
      expect(help).toContain(s.env);
      expect(help).toMatch(new RegExp(`file:? ${key}\\b`));
    }
    expect(help).toContain('default 7420');
    expect(help).toContain('--config <file>');
  });
});
