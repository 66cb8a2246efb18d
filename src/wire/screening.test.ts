import { describe, it, expect } from 'vitest';
import { SCREENING_RULES, screen } from './screening.js';

/** Fake credentials are assembled at run time so secret scanners do not flag this file. */
const fake = (prefix: string, length: number, alphabet = 'aB3xY7qZ9kLm'): string =>
  prefix + Array.from({ length }, (_, i) => alphabet[(i * 7) % alphabet.length]).join('');

const rulesIn = (text: string): string[] => screen(text).map((issue) => issue.rule);

/** Per rule: texts it must catch, and near misses it must let through. */
const CASES: Record<string, { caught: string[]; notCaught: string[] }> = {
  'private-key': {
    caught: [
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----',
      'my key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA',
      '-----BEGIN RSA PRIVATE KEY-----',
      '-----BEGIN EC PRIVATE KEY-----',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----',
    ],
    notCaught: [
      '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----',
      'Never paste your private key into a review.',
    ],
  },
  'api-key': {
    caught: [
      `aws_access_key_id ${fake('AKIA', 16, 'QWERTY234567')}`,
      `temporary ${fake('ASIA', 16, 'QWERTY234567')}`,
      `use ${fake('ghp_', 36)} for the API`,
      fake('github_pat_', 60, 'aB3_xY7qZ9kL'),
      fake('xoxb-', 30, 'a1b2c3-d4'),
      fake('sk-', 48),
      fake('sk-ant-api03-', 40),
      `key=${fake('AIza', 35, 'aB3_xY-7qZ9k')}`,
      fake('sk_live_', 24),
      fake('rk_live_', 24),
      fake('npm_', 36),
      `admin ${fake('mst_', 43, 'aB3-xY_7qZ9k')}`,
      fake('mst_admin_', 43),
      `operator ${fake('mso_', 43)}`,
    ],
    notCaught: [
      'see the task-list and the risk-assessment-for-every-release-train',
      'sk-learn-pipeline-tutorial-for-beginners',
      'ghp_ is the prefix of GitHub personal access tokens',
      'AKIA is how AWS access key ids start',
      'mst_short',
      'mso_short',
    ],
  },
  'secret-assignment': {
    caught: [
      'DB_PASSWORD=s3cr3t-Value!',
      'config:\n  api_key: 9f8e7d6c5b4a',
      '"client_secret": "Zq9-Lm3_Kx7pQ"',
      'secret = hunter2hunter2',
      'export GITHUB_TOKEN=abcd1234efgh',
      'curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA=="',
      'x-api-key: 12ab34cd56ef',
      'password => "correct horse battery staple"',
    ],
    notCaught: [
      'The password field must not be empty.',
      'Set the token in the Authorization header.',
      'password: <token>',
      'api_key: YOUR_API_KEY',
      'secret: ********',
      'token: xxxxxxxxxxxx',
      'API_KEY=${API_KEY}',
      'password: $DB_PASSWORD',
      'token: process.env.MUSTER_TOKEN',
      'token: req.headers.authorization',
      'password: hunter2',
      'max_tokens: 40960000',
      'password_hash: 5f4dcc3b5aa765d61d83',
      'Authorization: Bearer <token>',
    ],
  },
  'bearer-token': {
    caught: [
      `curl -H "Authorization: Bearer ${fake('', 32)}"`,
      `bearer ${fake('', 20, 'abc123._~+/-')}`,
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
      'unsigned: eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.',
    ],
    notCaught: [
      'The bearer of this letter is a trusted agent.',
      'Send Authorization: Bearer <token> with each request.',
      'Bearer YOUR_ACCESS_TOKEN_HERE',
      'eyJ is how base64url-encoded JSON starts',
    ],
  },
  'email-address': {
    caught: [
      'Contact alice.smith@acme.io for access.',
      'cc: Bob <bob+reviews@mail.example.co.uk>',
      'mailto:carol@corp-mail.de',
      'https://acme.io/users?email=dave@acme.io',
    ],
    notCaught: [
      'git@github.com:org/repo.git',
      'jane@example.com and test@mail.example.org',
      'install lodash@4.17.21 and @types/node@20',
      'ping me @alice on the thread',
      'user@localhost',
    ],
  },
  'local-path': {
    caught: [
      'it failed in /home/alice/projects/muster',
      'open /Users/bob/Library/Preferences',
      'as root: /root/.bashrc',
      'C:\\Users\\carol\\AppData\\Local',
      'D:\\work\\repo\\build.log',
      'keys live in ~/.ssh/id_ed25519',
      'edit /etc/hosts',
      'logs in /var/log/muster.log',
      'wrote /tmp/muster-123/out.json',
      'macOS: /private/var/folders/x',
      'see file:///opt/app/config.yaml',
      '\\\\fileserver\\share\\report.docx',
    ],
    notCaught: [
      'https://github.com/org/repo/tree/main/tmp/x',
      'https://nodejs.org/api/fs.html',
      'https://example.org/home/alice/page',
      'reviewers and/or maintainers, input/output',
      'the relative path src/tmp/fixtures and node_modules/etc/x',
      'GET /api/users/42 and /home/',
      'the /root/ directory',
    ],
  },
  'private-url': {
    caught: [
      'runs at http://localhost:3000/health',
      'see https://grafana.internal/d/abc',
      'http://printer.local/',
      'wss://api.dev.localhost/socket',
      'ftp://files.corp/pub',
      'http://nas.home.arpa:5000',
      'https://router.lan/admin',
      'http://192.168.1.10:8080/',
      'http://10.0.0.5/api',
      'http://127.0.0.1:9000',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.3.2/',
      'http://[::1]:8080/',
      'http://[fd12:3456::1]/',
      'http://0x7f.1/',
      'clone https://user:hunter2@github.com/org/repo.git',
      `https://${fake('ghp_', 36)}@github.com/org/repo`,
    ],
    notCaught: [
      'https://github.com/org/repo/issues/12',
      'https://nodejs.org/api/fs.html',
      'http://8.8.8.8/',
      'http://[2606:4700:4700::1111]/',
      'we ran it on localhost during the review',
      'https://local.example.com/ and https://internal-tools.io/',
    ],
  },
  'raw-log': {
    caught: [
      '2024-05-01T10:00:00Z INFO start\n2024-05-01T10:00:01Z INFO listening\n2024-05-01T10:00:02Z ERROR crashed',
      '[INFO] build started\n[WARN] deprecated API\n[ERROR] build failed',
      '[2024-05-01 10:00:00] started\nWARN: slow query\nERROR connection reset',
      'TypeError: x is undefined\n    at run (/app/src/index.js:10:5)\n    at main (/app/src/index.js:20:3)',
      'Exception in thread "main"\n\tat com.acme.App.run(App.java:42)\n\tat com.acme.App.main(App.java:10)',
      'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\nKeyError: 1',
    ],
    notCaught: [
      'On 2024-05-01T10:00:00Z the hub was restarted.',
      'ERROR handling could be better.\nWARN users earlier.',
      'The error happened at line 42 of the parser.',
      'Look at the logs:\n    at least two frames are needed (a.js:1:2)',
      'Release notes:\n- 2024-05-01: v1\n- 2024-05-02: v2\n- 2024-05-03: v3',
    ],
  },
};

describe('SCREENING_RULES', () => {
  it('lists the stable rule ids, each with a one-line description', () => {
    expect(SCREENING_RULES.map((rule) => rule.id)).toEqual([
      'private-key',
      'api-key',
      'secret-assignment',
      'bearer-token',
      'email-address',
      'local-path',
      'private-url',
      'raw-log',
    ]);
    for (const rule of SCREENING_RULES) expect(rule.what).toMatch(/^[^\n]{10,}$/);
  });

  it('has test cases for every rule', () => {
    expect(Object.keys(CASES).sort()).toEqual(SCREENING_RULES.map((rule) => rule.id).sort());
  });
});

for (const [rule, { caught, notCaught }] of Object.entries(CASES)) {
  describe(rule, () => {
    it.each(caught)('catches %j', (text) => {
      expect(rulesIn(text)).toContain(rule);
    });
    it.each(notCaught)('lets %j through', (text) => {
      expect(rulesIn(text)).not.toContain(rule);
    });
  });
}

describe('near misses', () => {
  it.each([
    'See https://github.com/a2aproject/A2A and https://nodejs.org/api/fs.html for details.',
    'The agent should validate input/output and/or report errors clearly.',
    'Make sure the password field is hashed before it is stored.',
    'Keep a task-list of open questions; the risk-assessment is attached.',
    'Tokens expire after an hour; refresh them with the refresh endpoint.',
    'We measured p99 latency of 120 ms at 2000 requests per second.',
  ])('ordinary text %j raises nothing', (text) => {
    expect(screen(text)).toEqual([]);
  });
});

describe('screen', () => {
  it('returns [] for a clean contribution-like object', () => {
    const contribution = {
      summary: 'The retry logic in the delivery worker looks right; see https://github.com/org/repo/pull/12.',
      verdict: 'approve',
      confidence: 0.8,
      conditions: ['Add a test for the 429 path', 'Document the backoff and/or the jitter'],
      references: [{ title: 'RFC 9110', url: 'https://www.rfc-editor.org/rfc/rfc9110' }],
      flags: { urgent: false, tags: null },
    };
    expect(screen(contribution)).toEqual([]);
    expect(screen(contribution, 'contribution')).toEqual([]);
  });

  it('names fields with bare keys at top level and [i] for array items', () => {
    const issues = screen({ summary: 'mail alice@acme.io', conditions: ['fine', 'see /home/alice/x'] });
    expect(issues.map(({ rule, field }) => ({ rule, field }))).toEqual([
      { rule: 'email-address', field: 'summary' },
      { rule: 'local-path', field: 'conditions[1]' },
    ]);
  });

  it('prefixes fields with the root path and walks nested values', () => {
    const issues = screen(
      { summary: 'http://localhost:3000', details: { notes: [{ text: 'x' }, { text: 'bob@acme.io' }] } },
      'contribution',
    );
    expect(issues.map((issue) => issue.field)).toEqual(['contribution.summary', 'contribution.details.notes[1].text']);
  });

  it('screens a bare string under the given path, or an empty one', () => {
    expect(screen('alice@acme.io', 'answer')).toEqual([
      { rule: 'email-address', field: 'answer', description: 'an e-mail address' },
    ]);
    expect(screen('alice@acme.io')[0]?.field).toBe('');
    expect(screen(['ok', 'alice@acme.io'])[0]?.field).toBe('[1]');
  });

  it('screens object keys at the field they name', () => {
    expect(screen({ reviewers: { 'alice@acme.io': 'approve' } })).toEqual([
      { rule: 'email-address', field: 'reviewers.alice@acme.io', description: 'an e-mail address' },
    ]);
  });

  it('reports one issue per rule per field, and each rule that matched', () => {
    const text = 'alice@acme.io, bob@acme.io, carol@acme.io; logs in /tmp/a and /var/b; token=Zq9Lm3Kx7pQw';
    expect(screen({ summary: text }).map((issue) => `${issue.rule} ${issue.field}`)).toEqual([
      'secret-assignment summary',
      'email-address summary',
      'local-path summary',
    ]);
  });

  it('ignores non-string values and survives cycles, still walking shared objects at each path', () => {
    const shared = { note: 'alice@acme.io' };
    const cyclic: Record<string, unknown> = { a: shared, b: shared, n: 1, t: true, z: null, u: undefined };
    cyclic['self'] = cyclic;
    expect(screen(cyclic).map((issue) => issue.field)).toEqual(['a.note', 'b.note']);
    expect(screen(42)).toEqual([]);
    expect(screen(undefined)).toEqual([]);
  });

  it('never echoes the secret in a description', () => {
    const secrets: [text: string, secret: string][] = [
      [`-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA`, 'MIIEowIBAAKCAQEA'],
      [fake('ghp_', 36), fake('', 36)],
      [fake('sk-ant-api03-', 40), fake('', 40)],
      [fake('AKIA', 16, 'QWERTY234567'), fake('', 16, 'QWERTY234567')],
      [fake('mst_', 43), fake('', 43)],
      ['DB_PASSWORD=s3cr3t-Value!', 's3cr3t'],
      [`Authorization: Bearer ${fake('', 32)}`, fake('', 32)],
      ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'eyJhbGciOiJIUzI1NiJ9'],
      ['alice.smith@acme.io', 'alice'],
      ['alice.smith@acme.io', 'acme.io'],
      ['/home/alice/x', 'alice'],
      ['C:\\Users\\carol\\x', 'carol'],
      ['https://bob:hunter2@github.com/x', 'hunter2'],
      ['https://bob:hunter2@github.com/x', 'bob'],
      ['https://vault.internal/v1', 'vault'],
    ];
    for (const [text, secret] of secrets) {
      const issues = screen(text);
      expect(issues.length, text).toBeGreaterThan(0);
      for (const issue of issues) expect(issue.description, text).not.toContain(secret);
    }
  });

  it('shows at most a masked prefix hint', () => {
    expect(screen(fake('ghp_', 36))[0]?.description).toBe('a GitHub token (ghp_…)');
    expect(screen('see /home/alice/x')[0]?.description).toBe('a local file path (/home/…)');
    expect(screen('http://10.1.2.3/')[0]?.description).toBe('a URL to a private (RFC 1918) address');
  });

  it('stays fast on long adversarial text', () => {
    const n = 20_000;
    const texts = ['a-', 'a.', 'a@a.', 'sk-', '/home/', 'password=', 'http://a ', '\n', ' \tat ', '1-'].map((unit) =>
      unit.repeat(Math.ceil(n / unit.length)),
    );
    const started = performance.now();
    for (const text of texts) screen(text);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
