/**
 * The configuration: one table of settings read from flags, the environment and a JSON or YAML
 * file (--config / MUSTER_CONFIG), flags > environment > file > defaults; unknown keys and bad
 * values refused in one line naming the setting as the operator wrote it; `muster config` shows
 * the effective settings with secrets masked.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, hubSettings } from '../src/config/index.js';
import { wholeNumber } from '../src/config/values.js';
import { quotaRulesOf } from '../src/hub/hub.js';
import type { KindModule } from '../src/hub/kind.js';
import { Kinds } from '../src/hub/kinds.js';
import { KIND_MODULES } from '../src/kinds/server.js';
import type { ReviewSettings } from '../src/kinds/review/request.js';
import { reviewSettings } from '../src/kinds/review/settings.js';
import { limitSettingKey, MINUTE } from '../src/identity/quota-rule.js';
import { Quotas } from '../src/identity/quotas.js';
import type { Store } from '../src/store/store.js';
import { explainConfig, resolveConfig, SETTINGS, SETTING_KEYS } from './helpers/config.js';
import { cleanEnv } from './helpers/nodes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'muster-config-'));

function configFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The ConfigError's message for these sources (fails the test if they are accepted). */
function refusal(flags: Record<string, string>, env: Record<string, string>): string {
  try {
    resolveConfig(flags, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}

const origin = (flags: Record<string, string>, env: Record<string, string>, key: string) =>
  explainConfig(flags, env).find((e) => e.key === key)!;

describe('the settings table', () => {
  it('gives every setting a flag in kebab-case and a MUSTER_ variable, except the admin token, which has no flag', () => {
    expect(SETTINGS.publicUrl.flag).toBe('--public-url');
    expect(SETTINGS.sseHeartbeatMs.env).toBe('MUSTER_SSE_HEARTBEAT_MS');
    expect(SETTINGS['reviewMinDeadlineS']?.flag).toBe('--review-min-deadline-s');
    expect(SETTINGS.adminToken.flag).toBeUndefined();
    expect(SETTINGS.adminToken.secret).toBe(true);
    expect(SETTING_KEYS).toEqual(
      expect.arrayContaining([
        'logLevel',
        'metrics',
        'rateLimits',
        'allowPrivateTargets',
        'deliveryRetries',
        'reviewSourceHosts',
        'maxStreamsPerCaller',
      ]),
    );
  });
});

describe("a kind's settings come from its module", () => {
  /** A toy kind, not shipped: one setting, one quota rule, and what it makes of its setting. */
  const toy: KindModule<{ patienceMs: number }> = {
    name: 'toy',
    opensAt: [],
    quotaRules: { 'toy.poke': { limit: 7, windowMs: MINUTE, what: 'pokes a minute' } },
    settings: {
      toyPatienceS: {
        arg: '<seconds>',
        allowed: 'a whole number of at least 1',
        parse: wholeNumber(1),
        fallback: '5',
        help: 'seconds a toy waits',
      },
    },
    settingsFrom: (s) => {
      if (s['toyPatienceS']!.value > 60) throw new ConfigError(`${s['toyPatienceS']!.origin.name} is too patient`);
      return { patienceMs: s['toyPatienceS']!.value * 1000 };
    },
    create: ({ settings }) => ({ name: 'toy', patienceMs: settings?.patienceMs }) as never,
  };
  const table = hubSettings([...KIND_MODULES, toy]);

  it("every module's settings and quota rules are in the table as it declared them", () => {
    for (const m of KIND_MODULES) {
      for (const [key, declared] of Object.entries(m.settings ?? {})) {
        expect(SETTINGS[key], key).toMatchObject({
          key,
          help: declared.help,
          allowed: declared.allowed,
          fallback: declared.fallback,
        });
      }
      for (const rule of Object.keys(m.quotaRules ?? {})) expect(SETTING_KEYS, rule).toContain(limitSettingKey(rule));
    }
    expect(KIND_MODULES.filter((m) => m.settings).map((m) => m.name)).toEqual(['direct', 'review', 'intent']);
  });

  it('a module added to the list brings its settings: flag, variable, help, check and limit', () => {
    expect(SETTING_KEYS).not.toContain('toyPatienceS');
    expect(table.settings['toyPatienceS']).toMatchObject({
      flag: '--toy-patience-s',
      env: 'MUSTER_TOY_PATIENCE_S',
      fallback: '5',
    });
    expect(table.settings['limitToyPoke']).toMatchObject({
      env: 'MUSTER_LIMIT_TOY_POKE',
      fallback: '7',
      help: 'the most pokes a minute',
    });
    const config = table.resolveConfig({ limitToyPoke: '9' }, { MUSTER_TOY_PATIENCE_S: '3' });
    expect(config.kinds['toy']).toEqual({ patienceMs: 3000 });
    expect(config.limits['toy.poke']).toBe(9);
    expect(() => table.resolveConfig({}, { MUSTER_TOY_PATIENCE_S: 'never' })).toThrow(
      "MUSTER_TOY_PATIENCE_S must be a whole number of at least 1, not 'never'",
    );
    expect(() => table.resolveConfig({ toyPatienceS: '61' }, {})).toThrow(
      new ConfigError('--toy-patience-s is too patient'),
    );
    expect(table.explainConfig({}, {}).find((e) => e.key === 'toyPatienceS')).toMatchObject({
      value: '5',
      origin: { from: 'default' },
    });
  });

  it('the hub hands each kind its own settings, and a kind handed none takes its defaults', () => {
    const deps = { quotas: new Quotas({}, false), store: {} as Store, requireAgent: async () => {} };
    const built = (settings?: Record<string, unknown>) =>
      new Kinds(deps, [toy], settings).byName.get('toy') as unknown as { patienceMs?: number };
    expect(built(table.resolveConfig({}, {}).kinds).patienceMs).toBe(5000);
    expect(built().patienceMs).toBeUndefined();
    expect(resolveConfig({}, {}).kinds).toEqual({
      direct: { blockingWaitMs: 30_000 },
      review: { minDeadlineS: 1800, maxDeadlineS: 604_800, sourceHosts: expect.arrayContaining(['github.com']) },
      intent: { intentWaitMs: 20_000 },
    });
  });

  it("the kinds' settings keep their places: their limits after the hub's own, their settings before the log settings", () => {
    const at = (key: string) => SETTING_KEYS.indexOf(key);
    expect(at('limitTokenFailuresOperator')).toBe(at('limitDirectPair') - 1);
    expect(at('limitMemoryCalls')).toBe(at('trustProxy') - 1);
    expect(SETTING_KEYS.slice(at('keyGraceDays') + 1, at('logLevel'))).toEqual([
      'blockingWaitS',
      'reviewMinDeadlineS',
      'reviewMaxDeadlineS',
      'reviewSourceHosts',
      'intentWaitS',
    ]);
  });

  it('a key declared twice is refused when the table is made', () => {
    expect(() => hubSettings([{ ...toy, settings: { port: toy.settings!['toyPatienceS']! } }])).toThrow(
      'setting port is declared twice (again by kind toy)',
    );
  });
});

describe('the rate limits: one setting each', () => {
  it("every rule the hub counts has a limit… setting, whose default is the rule's declared limit", () => {
    const defaults = resolveConfig({}, {}).limits;
    for (const [name, rule] of Object.entries(quotaRulesOf(KIND_MODULES))) {
      const setting = SETTINGS[limitSettingKey(name)];
      expect(setting, name).toBeDefined();
      expect(setting?.fallback, name).toBe(String(rule.limit));
      expect(defaults[name], name).toBe(rule.limit);
    }
    expect(Object.keys(defaults).sort()).toEqual(Object.keys(quotaRulesOf(KIND_MODULES)).sort());
  });

  it("the defaults: Vorn's 30 a minute per pair and 300 per inbox, 60 registrations an hour per address, …", () => {
    expect(resolveConfig({}, {}).limits).toEqual({
      'register.address': 60,
      'forwarding.change': 30,
      'token.failures': 100,
      'token.failures.operator': 10,
      'direct.pair': 30,
      'direct.inbox': 300,
      'direct.daily': 5000,
      'direct.followup': 60,
      'review.post': 2,
      'review.open': 2,
      'review.contribute': 3,
      'call.answer': 10,
      'intent.declare': 120,
      'memory.calls': 600,
    });
  });

  it('a limit is set like any setting, and refused unless a whole number of at least 1', () => {
    expect(resolveConfig({ limitDirectPair: '5' }, { MUSTER_LIMIT_DIRECT_INBOX: '50' }).limits).toMatchObject({
      'direct.pair': 5,
      'direct.inbox': 50,
    });
    expect(SETTINGS.limitTokenFailuresOperator.env).toBe('MUSTER_LIMIT_TOKEN_FAILURES_OPERATOR');
    expect(refusal({}, { MUSTER_LIMIT_DIRECT_PAIR: '0' })).toBe(
      "MUSTER_LIMIT_DIRECT_PAIR must be a whole number of at least 1, not '0'",
    );
  });

  it('trustProxy: off (the default), on, or proxy addresses and ranges', () => {
    expect(resolveConfig({}, {}).trustProxy).toBe(false);
    expect(resolveConfig({}, { MUSTER_TRUST_PROXY: 'on' }).trustProxy).toBe(true);
    expect(resolveConfig({ trustProxy: '10.0.0.5, 172.16.0.0/12,::1' }, {}).trustProxy).toEqual([
      '10.0.0.5',
      '172.16.0.0/12',
      '::1',
    ]);
    expect(refusal({}, { MUSTER_TRUST_PROXY: 'proxy.internal' })).toBe(
      "MUSTER_TRUST_PROXY must be off, on, or a comma list of proxy addresses and CIDR ranges, such as 10.0.0.5,172.16.0.0/12, not 'proxy.internal'",
    );
  });
});

describe('docs/operations.md', () => {
  it('lists every setting with its file key, flag and variable', () => {
    const doc = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');
    for (const key of SETTING_KEYS) {
      const s = SETTINGS[key]!;
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${key}\` |`));
      expect(row, key).toBeDefined();
      expect(row).toContain(`\`${s.env}\``);
      if (s.flag) expect(row).toContain(`\`${s.flag}\``);
    }
  });
});

describe('precedence: flags > environment > file > defaults', () => {
  const yaml = configFile(
    'muster.yaml',
    ['port: 1111', 'registration: admin', 'rateLimits: off', 'logLevel: warn', ''].join('\n'),
  );

  it('takes each setting from the strongest source that has it, and says which', () => {
    const all = { MUSTER_CONFIG: yaml, MUSTER_PORT: '2222' };
    expect(resolveConfig({ port: '3333' }, all).port).toBe(3333);
    expect(origin({ port: '3333' }, all, 'port').origin).toMatchObject({ from: 'flag', name: '--port' });
    expect(resolveConfig({}, all).port).toBe(2222);
    expect(origin({}, all, 'port').origin).toMatchObject({ from: 'env', name: 'MUSTER_PORT' });
    expect(resolveConfig({}, { MUSTER_CONFIG: yaml }).port).toBe(1111);
    expect(origin({}, { MUSTER_CONFIG: yaml }, 'port').origin).toMatchObject({ from: 'file', file: yaml });
    expect(resolveConfig({}, {}).port).toBe(7420);
    expect(origin({}, {}, 'port').origin.from).toBe('default');
  });

  it('--config wins over MUSTER_CONFIG, and the file fills what neither flags nor environment set', () => {
    const other = configFile('other.yaml', 'port: 4444\n');
    const config = resolveConfig({ config: other }, { MUSTER_CONFIG: yaml, MUSTER_REGISTRATION: 'open' });
    expect(config.port).toBe(4444);
    expect(config.registration).toBe('open');
    const fromFile = resolveConfig({}, { MUSTER_CONFIG: yaml });
    expect(fromFile).toMatchObject({ registration: 'admin', rateLimits: false, logLevel: 'warn' });
  });

  it('an empty variable counts as unset, as it always has', () => {
    expect(resolveConfig({}, { MUSTER_CONFIG: yaml, MUSTER_PORT: '' }).port).toBe(1111);
  });
});

describe('config files', () => {
  it('reads YAML and JSON alike, numbers, booleans and lists included', () => {
    const yaml = configFile(
      'typed.yaml',
      [
        'port: 0',
        'allowPrivateTargets: true',
        'deliveryRetries: [1, 2, 5]',
        'reviewSourceHosts:',
        '  - example.org',
        '  - Docs.Example.org',
        'metrics: public',
        '',
      ].join('\n'),
    );
    const json = configFile(
      'typed.json',
      JSON.stringify({
        port: 0,
        allowPrivateTargets: true,
        deliveryRetries: [1, 2, 5],
        reviewSourceHosts: ['example.org', 'Docs.Example.org'],
        metrics: 'public',
      }),
    );
    for (const file of [yaml, json]) {
      const config = resolveConfig({ config: file }, {});
      expect(config.port).toBe(0);
      expect(config.allowPrivateTargets).toBe(true);
      expect(config.deliveryRetries).toEqual([1, 2, 5]);
      expect((config.kinds['review'] as ReviewSettings).sourceHosts).toEqual(['example.org', 'docs.example.org']);
      expect(config.metrics).toBe('public');
    }
  });

  it('holds any setting, the secret one included, and nested settings land where the hub reads them', () => {
    const file = configFile(
      'full.json',
      JSON.stringify({
        adminToken: 'from-the-file',
        sseHeartbeatMs: 200,
        maxStreamsPerCaller: 3,
        reviewMinDeadlineS: 1,
        publicUrl: 'https://hub.example.com',
        host: '0.0.0.0',
      }),
    );
    const config = resolveConfig({ config: file }, {});
    expect(config.adminToken).toBe('from-the-file');
    expect(config.adminTokenFrom).toBe(`adminToken in ${file}`);
    expect(config.streams).toMatchObject({ heartbeatMs: 200, maxPerCaller: 3 });
    expect((config.kinds['review'] as ReviewSettings).minDeadlineS).toBe(1);
    expect(config.publicUrl?.href).toBe('https://hub.example.com/');
  });

  it('an empty file sets nothing', () => {
    expect(resolveConfig({ config: configFile('empty.yaml', '') }, {}).port).toBe(7420);
  });

  it('refuses an unknown key, naming it and the nearest known key', () => {
    expect(refusal({ config: configFile('typo.yaml', 'prot: 8080\n') }, {})).toMatch(
      /: unknown setting 'prot'; did you mean 'port'\?$/,
    );
    expect(refusal({ config: configFile('kebab.json', '{"public-url": "https://x.example"}') }, {})).toContain(
      "unknown setting 'public-url'; did you mean 'publicUrl'?",
    );
    expect(refusal({ config: configFile('env-name.yaml', 'MUSTER_RATE_LIMITS: off\n') }, {})).toContain(
      "did you mean 'rateLimits'?",
    );
    const far = refusal({ config: configFile('far.yaml', 'banana: 1\n') }, {});
    expect(far).toContain("unknown setting 'banana'; the settings are host, port, db,");
  });

  it('refuses a file it cannot read or parse, and one that is not a mapping, in one line', () => {
    expect(refusal({ config: join(dir, 'missing.yaml') }, {})).toBe(
      `cannot read the config file ${join(dir, 'missing.yaml')}: ENOENT`,
    );
    expect(refusal({ config: configFile('bad.json', '{"port": ') }, {})).toMatch(/bad\.json is not valid JSON: /);
    expect(refusal({ config: configFile('bad.yaml', 'port: [1, 2\n') }, {})).toMatch(
      /bad\.yaml is not valid YAML: [^\n]+$/,
    );
    expect(refusal({ config: configFile('list.yaml', '- 1\n- 2\n') }, {})).toContain(
      'must hold settings by name, such as port: 7420',
    );
    expect(refusal({ config: configFile('muster.toml', 'port = 1\n') }, {})).toContain(
      '--config must name a .json, .yaml or .yml file',
    );
    expect(refusal({ config: configFile('nested.yaml', 'port:\n  value: 1\n') }, {})).toContain('port in');
  });
});

describe('bad values stop the hub in one line naming the setting as written', () => {
  it('on/off switches refuse anything else (MUSTER_RATE_LIMITS=maybe)', () => {
    expect(refusal({}, { MUSTER_RATE_LIMITS: 'maybe' })).toBe("MUSTER_RATE_LIMITS must be on or off, not 'maybe'");
    expect(refusal({ allowPrivateTargets: 'yes please' }, {})).toBe(
      "--allow-private-targets must be on or off, not 'yes please'",
    );
    expect(resolveConfig({}, { MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_RATE_LIMITS: 'off' })).toMatchObject({
      allowPrivateTargets: true,
      rateLimits: false,
    });
  });

  it('names the flag, the variable or the file key, whichever was used', () => {
    expect(refusal({ port: 'high' }, {})).toBe("--port must be a number from 0 to 65535, not 'high'");
    expect(refusal({}, { MUSTER_PORT: '70000' })).toBe("MUSTER_PORT must be a number from 0 to 65535, not '70000'");
    const file = configFile('bad-port.yaml', 'port: high\n');
    expect(refusal({ config: file }, {})).toBe(`port in ${file} must be a number from 0 to 65535, not 'high'`);
    expect(refusal({}, { MUSTER_LOG_LEVEL: 'loud' })).toBe(
      "MUSTER_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not 'loud'",
    );
    expect(refusal({ metrics: 'everyone' }, {})).toBe("--metrics must be admin or public, not 'everyone'");
    expect(refusal({}, { MUSTER_DELIVERY_RETRIES: '60,soon' })).toBe(
      "MUSTER_DELIVERY_RETRIES must be a comma list of seconds, such as 60,300,1800, not '60,soon'",
    );
    expect(refusal({}, { MUSTER_REVIEW_SOURCE_HOSTS: 'github.com,not a host' })).toContain(
      'MUSTER_REVIEW_SOURCE_HOSTS must be a comma list of host names',
    );
    expect(refusal({ db: 'mysql://x' }, {})).toBe("--db must be sqlite:<file> or postgres://…, not 'mysql://x'");
    expect(refusal({ publicUrl: 'hub.example.com' }, {})).toContain(
      "--public-url must be an absolute http(s) URL such as https://hub.example.com/, not 'hub.example.com'",
    );
  });

  it('checks settings against each other, naming both', () => {
    expect(refusal({ reviewMaxDeadlineS: '60' }, { MUSTER_REVIEW_MIN_DEADLINE_S: '120' })).toBe(
      '--review-max-deadline-s (60) must not be less than MUSTER_REVIEW_MIN_DEADLINE_S (120)',
    );
    expect(refusal({ host: '0.0.0.0' }, {})).toMatch(/^binding to 0\.0\.0\.0 \(not loopback\) needs --public-url/);
  });

  it('never echoes a secret it refuses', () => {
    const message = refusal({ config: configFile('blank-token.json', JSON.stringify({ adminToken: '   ' })) }, {});
    expect(message).toMatch(/^adminToken in .* must be a non-empty token$/);
  });

  it('reviewSettings (the CLI review preview) reads the same table', () => {
    expect(reviewSettings({ MUSTER_REVIEW_MIN_DEADLINE_S: '5' }).minDeadlineS).toBe(5);
    expect(() => reviewSettings({ MUSTER_REVIEW_MIN_DEADLINE_S: 'soon' })).toThrow(
      "MUSTER_REVIEW_MIN_DEADLINE_S must be a whole number of at least 1, not 'soon'",
    );
    const file = configFile('preview.yaml', ['port: 1111', 'reviewMaxDeadlineS: 60', ''].join('\n'));
    expect(reviewSettings({ MUSTER_CONFIG: file, MUSTER_REVIEW_MIN_DEADLINE_S: '5' })).toMatchObject({
      minDeadlineS: 5,
      maxDeadlineS: 60,
    });
    expect(() => reviewSettings({ MUSTER_CONFIG: file })).toThrow(
      `reviewMaxDeadlineS in ${file} (60) must not be less than the default --review-min-deadline-s (1800)`,
    );
  });
});

describe('muster config', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'config', ...args], {
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
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--help'], {
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
