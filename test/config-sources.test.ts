/**
 * Where the settings come from and how bad ones are refused: flags > environment > a JSON or YAML
 * file (--config / MUSTER_CONFIG) > defaults, each value's origin said; unknown keys and bad
 * values refused in one line naming the setting as the operator wrote it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReviewSettings } from '../src/kinds/review/request.js';
import { reviewSettings } from '../src/kinds/review/settings.js';
import { explainConfig, resolveConfig } from './helpers/config.js';
import { configDir, configFile, refusal } from './helpers/config-sources.js';

const origin = (flags: Record<string, string>, env: Record<string, string>, key: string) =>
  explainConfig(flags, env).find((e) => e.key === key)!;

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
    expect(refusal({ config: join(configDir, 'missing.yaml') }, {})).toBe(
      `cannot read the config file ${join(configDir, 'missing.yaml')}: ENOENT`,
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
