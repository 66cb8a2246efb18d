/**
 * Operators through the real `muster` CLI: the admin creates one, its token (--operator-token,
 * MUSTER_OPERATOR_TOKEN, or a profile saved by login) registers an agent it owns, updates it,
 * pauses and resumes it, reads its inbox and tasks and rotates its token; --json is the one contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshConfigHome, runMuster, type Run } from './helpers/cli.js';
import { ADMIN_TOKEN, register, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let peer: Registered;

beforeAll(async () => {
  hub = await startTestHub();
  peer = await register(hub, 'cli-peer');
});
afterAll(() => hub.destroy());

const muster = (args: string[], env: Record<string, string> = {}, token?: string): Promise<Run> =>
  runMuster(hub.url, args, token, env);
const json = (r: Run): any => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

// Each test runs CLI processes (a second or more each on a busy machine).
describe('operators through the CLI', { timeout: 180_000 }, () => {
  let operatorToken = '';

  it('operator create (admin): prints the token once; without the admin token it is a usage error', async () => {
    const made = await muster(['operator', 'create', 'cli-olga', '--name', 'Olga', '--admin-token', ADMIN_TOKEN]);
    expect(made.code).toBe(0);
    operatorToken = made.stdout.match(/token +(mso_\S+)/)![1]!;
    expect(made.stdout).toContain('Created operator cli-olga (Olga).');
    expect(made.stdout).toContain(`export MUSTER_OPERATOR_TOKEN=${operatorToken}`);
    const refused = await muster(['operator', 'create', 'cli-other', '--json']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.code).toBe('USAGE');
  });

  it('register, agents update and agents pause with the operator token; a send is then refused, naming the pause', async () => {
    const bot = json(await muster(['register', 'cli-bot', '--operator-token', operatorToken, '--json']));
    expect(bot).toMatchObject({ handle: 'cli-bot', operator: 'cli-olga', token: expect.stringMatching(/^mst_/) });
    const updated = json(
      await muster(['agents', 'update', '--agent', 'cli-bot', '--name', 'CLI Bot', '--json'], {
        MUSTER_OPERATOR_TOKEN: operatorToken,
      }),
    );
    expect(updated).toMatchObject({ handle: 'cli-bot', name: 'CLI Bot', operator: 'cli-olga' });
    const paused = await muster(['agents', 'pause', 'cli-bot', '--operator-token', operatorToken]);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(
      /^Paused cli-bot: new direct tasks to it are refused until muster agents resume cli-bot\.\n/,
    );
    expect(paused.stdout).toMatch(/paused +since \S+, by the operator/);
    const refused = await muster(['send', 'cli-bot', 'hello', '--json'], {}, peer.token);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'AGENT_PAUSED',
      message: expect.stringContaining("paused by its operator 'cli-olga'"),
    });
    const byAgent = await muster(['agents', 'pause', 'cli-bot', '--json'], {}, peer.token);
    expect(JSON.parse(byAgent.stdout).error.code).toBe('USAGE'); // an agent token is not what pause sends
    expect(
      json(await muster(['agents', 'resume', 'cli-bot', '--operator-token', operatorToken, '--json'])).paused,
    ).toBeUndefined();
  });

  it("inbox --agent and get read the agent's tasks; token rotate --agent gives it a new token", async () => {
    const task = json(await muster(['send', 'cli-bot', 'after the pause', '--json'], {}, peer.token));
    const inbox = json(await muster(['inbox', '--agent', 'cli-bot', '--operator-token', operatorToken, '--json']));
    expect(inbox.items.map((t: { id: string }) => t.id)).toEqual([task.id]);
    expect(json(await muster(['get', task.id, '--operator-token', operatorToken, '--json'])).id).toBe(task.id);
    const forwarding = json(
      await muster(['forwarding', '--agent', 'cli-bot', '--operator-token', operatorToken, '--json']),
    );
    expect(forwarding.enabled).toBe(false);
    const rotated = json(
      await muster(['token', 'rotate', '--agent', 'cli-bot', '--operator-token', operatorToken, '--json']),
    );
    expect(rotated).toEqual({ handle: 'cli-bot', token: expect.stringMatching(/^mst_/) });
    const noAgent = await muster(['token', 'rotate', '--operator-token', operatorToken, '--json']);
    expect([noAgent.code, JSON.parse(noAgent.stdout).error.hint]).toEqual([2, 'Pass --agent <handle>']);
  });

  it('login --operator-token saves a profile that whoami, inbox --agent and agents pause then use', async () => {
    const home = freshConfigHome();
    const login = await runMuster(
      undefined,
      ['login', '--url', hub.url, '--operator-token', operatorToken],
      undefined,
      { XDG_CONFIG_HOME: home },
    );
    expect(login.stdout).toContain('as operator cli-olga (owns: cli-bot)');
    expect(login.stdout).not.toContain(operatorToken);
    const me = await runMuster(undefined, ['whoami', '--json'], undefined, { XDG_CONFIG_HOME: home });
    expect(json(me)).toEqual({ kind: 'operator', handle: 'cli-olga', agents: ['cli-bot'] });
    const paused = await runMuster(undefined, ['agents', 'pause', 'cli-bot', '--json'], undefined, {
      XDG_CONFIG_HOME: home,
    });
    expect(json(paused).paused.by).toBe('operator');
  });
});
