/**
 * The configuration's one table of settings: every setting has a flag, a MUSTER_ variable and a
 * file key; a kind's module brings its own settings and quota rules into it; every rate-limit
 * rule has a limit… setting; docs/operations.md lists them all. Where the values come from and
 * how bad ones are refused: config-sources.test.ts; `muster config`: config-command.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, hubSettings } from '../src/config/index.js';
import { wholeNumber } from '../src/config/values.js';
import { quotaRulesOf } from '../src/hub/hub.js';
import type { KindModule } from '../src/hub/kind-module.js';
import { Kinds } from '../src/hub/kinds.js';
import { KIND_MODULES } from '../src/kinds/server.js';
import { limitSettingKey, MINUTE } from '../src/identity/quota-rule.js';
import { Quotas } from '../src/identity/quotas.js';
import type { Store } from '../src/store/store.js';
import { resolveConfig, SETTINGS, SETTING_KEYS } from './helpers/config.js';
import { refusal } from './helpers/config-sources.js';

const root = fileURLToPath(new URL('..', import.meta.url));

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
