/** Saved logins: login checks and saves (0600), every command reads the profile, flags and env override it. */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigHome, runMuster, type Run } from './helpers/cli.js';
import { registerAll, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let other: TestHub;
let pia: Registered, quin: Registered;

beforeAll(async () => {
  [hub, other] = await Promise.all([startTestHub(), startTestHub()]);
  [pia, quin] = await registerAll(hub, 'prof-pia', 'prof-quin');
});
afterAll(async () => {
  await Promise.all([hub?.destroy(), other?.destroy()]);
});

/** The CLI with only the config folder set: no MUSTER_URL, no MUSTER_TOKEN unless `env` says so. */
const inHome = (home: string, args: string[], env: Record<string, string> = {}): Promise<Run> =>
  runMuster(undefined, args, undefined, { XDG_CONFIG_HOME: home, ...env });
const handleOf = (r: Run) => {
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).handle as string;
};

// Each test runs CLI processes (a second or more each on a busy machine).
describe('muster login and profiles', { timeout: 120_000 }, () => {
  it('login checks the token, saves url and token for the owner only, and every command then uses them', async () => {
    const home = freshConfigHome();
    const login = await inHome(home, ['login', '--url', hub.url, '--token', pia.token]);
    expect(login.code).toBe(0);
    expect(login.stdout).toBe(
      `Logged in to ${hub.url} as prof-pia\n  A2A base  ${hub.url}agents/prof-pia/\n  since     ${login.stdout.match(/since +(\S+)/)?.[1]}\n(saved as profile "default")\n`,
    );
    expect(login.stdout).not.toContain(pia.token);

    const file = join(home, 'muster', 'profiles.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'muster')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ default: { url: hub.url, token: pia.token } });

    const [whoami, inbox] = await Promise.all([inHome(home, ['whoami', '--json']), inHome(home, ['inbox', '--json'])]);
    expect(handleOf(whoami)).toBe('prof-pia');
    expect(inbox.code).toBe(0);
    expect(JSON.parse(inbox.stdout)).toEqual({ items: [] });
  });

  it('--token and MUSTER_TOKEN override the profile, --token over the environment; --profile and MUSTER_PROFILE pick one', async () => {
    const home = freshConfigHome();
    expect((await inHome(home, ['login', '--url', hub.url, '--token', pia.token])).code).toBe(0);
    expect(
      (await inHome(home, ['login', '--url', hub.url, '--token', quin.token, '--profile', 'work', '--json'])).code,
    ).toBe(0);
    const [flag, env, both, named, named2] = await Promise.all([
      inHome(home, ['whoami', '--json', '--token', quin.token]),
      inHome(home, ['whoami', '--json'], { MUSTER_TOKEN: quin.token }),
      inHome(home, ['whoami', '--json', '--token', pia.token], { MUSTER_TOKEN: quin.token }),
      inHome(home, ['whoami', '--json', '--profile', 'work']),
      inHome(home, ['whoami', '--json'], { MUSTER_PROFILE: 'work' }),
    ]);
    expect([flag, env, both, named, named2].map(handleOf)).toEqual([
      'prof-quin',
      'prof-quin',
      'prof-pia',
      'prof-quin',
      'prof-quin',
    ]);
    // A MUSTER_TOKEN that is set but empty sends no token, whatever the profile holds.
    const emptied = await inHome(home, ['whoami', '--json'], { MUSTER_TOKEN: '' });
    expect(emptied.code).toBe(1);
    expect(JSON.parse(emptied.stdout).error.code).toBe('UNAUTHENTICATED');
  });

  it("the profile's token goes only to the profile's hub: another --url gets no token", async () => {
    const home = freshConfigHome();
    await inHome(home, ['login', '--url', hub.url, '--token', pia.token]);
    const [elsewhere, envElsewhere] = await Promise.all([
      inHome(home, ['whoami', '--url', other.url]),
      inHome(home, ['whoami', '--json'], { MUSTER_URL: other.url }),
    ]);
    for (const r of [elsewhere, envElsewhere]) expect(r.code).toBe(1);
    expect(elsewhere.stderr).toBe(
      'muster: You are anonymous: no token was sent\n  hint: Run muster login --url <hub> --token <token>, or pass --token or set MUSTER_TOKEN\n',
    );
    expect(JSON.parse(envElsewhere.stdout).error.code).toBe('UNAUTHENTICATED');
  });

  it('whoami without any token exits 1; login with a bad token saves nothing; logout forgets the profile', async () => {
    const home = freshConfigHome();
    const anonymous = await inHome(home, ['whoami', '--json', '--url', hub.url]);
    expect(anonymous.code).toBe(1);
    expect(JSON.parse(anonymous.stdout)).toEqual({
      error: {
        code: 'UNAUTHENTICATED',
        message: 'You are anonymous: no token was sent',
        hint: 'Run muster login --url <hub> --token <token>, or pass --token or set MUSTER_TOKEN',
      },
    });

    const bad = await inHome(home, ['login', '--url', hub.url, '--token', 'mst_not-a-token', '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    expect(() => statSync(join(home, 'muster', 'profiles.json'))).toThrow();
    const noToken = await inHome(home, ['login', '--url', hub.url]);
    expect(noToken.code).toBe(2);

    await inHome(home, ['login', '--url', hub.url, '--token', pia.token]);
    const out = await inHome(home, ['logout', '--json']);
    expect(JSON.parse(out.stdout)).toEqual({ profile: 'default', removed: true });
    expect(JSON.parse(readFileSync(join(home, 'muster', 'profiles.json'), 'utf8'))).toEqual({});
    expect((await inHome(home, ['whoami', '--url', hub.url])).code).toBe(1);
    expect((await inHome(home, ['logout'])).stdout).toBe('There was no profile "default".\n');
  });

  it('token rotate through a profile keeps the new token in the profile, so the next command still works', async () => {
    const home = freshConfigHome();
    const [rita] = await registerAll(hub, 'prof-rita');
    await inHome(home, ['login', '--url', hub.url, '--token', rita.token]);
    const rotated = await inHome(home, ['token', 'rotate', '--json']);
    expect(rotated.code).toBe(0);
    const { token } = JSON.parse(rotated.stdout);
    expect(JSON.parse(readFileSync(join(home, 'muster', 'profiles.json'), 'utf8')).default.token).toBe(token);
    expect(handleOf(await inHome(home, ['whoami', '--json']))).toBe('prof-rita');
  });
});
