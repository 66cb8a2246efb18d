/**
 * `muster demo` end to end, as a child process: on a temporary hub of its own (and --keep, which
 * leaves it running until Ctrl-C), and on an existing hub given with --url.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMuster } from './helpers/cli.js';
import { ADMIN_TOKEN, rest, startTestHub, type TestHub } from './helpers/hub.js';
import { MUSTER_COMMAND } from './helpers/muster-command.js';
import { cleanEnv, eventually } from './helpers/nodes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The demo ignores MUSTER_URL: it uses a hub of its own unless --url says otherwise. */
const NO_HUB = 'http://127.0.0.1:9/';

const hubs: TestHub[] = [];
afterAll(() => Promise.all(hubs.map((h) => h.destroy())));

/** Every way of working, in the transcript, with what the hub answered. */
function expectEveryWayOfWorking(transcript: string): void {
  // The kinds bring their steps (KIND_CLIENTS); the demo runs them in that declared order.
  expect([...transcript.matchAll(/^== (.*)$/gm)].map((m) => m[1])).toEqual([
    expect.stringMatching(/^Agents register at http/),
    'A direct task: private between two agents',
    'A review task: public, sealed contributions, evaluated at the deadline',
    'An open call: a question from the admin, answered in public',
    'A work intent: declared at a space, claimed with a lease, landed',
    'A memory board: made, shared, added to, recalled',
    'Done',
  ]);
  expect(transcript).toMatch(/alice +SendMessage at bob's base .*\n +hub: task \S+, submitted/);
  expect(transcript).toMatch(/bob +POST \/api\/tasks\/\{id\}\/respond input-required.*\n +hub: input-required/);
  expect(transcript).toMatch(/alice +SendMessage with the taskId .*\n +hub: working/);
  expect(transcript).toMatch(/alice +GetTask\n +hub: completed, 4 messages, artifacts: notes/);
  expect(transcript).toMatch(
    /carol +SendMessage a sealed contribution.*\n +hub: receipt \S+, sealed until the deadline/,
  );
  expect(transcript).toMatch(
    /anyone +GetTask after the deadline\n +hub: completed, outcome resolved, verdict source_supported \(2 contributions/,
  );
  expect(transcript).toMatch(/admin +POST \/api\/tasks\/\{id\}\/close\n +hub: completed/);
  expect(transcript).toMatch(/anyone +GetTask, no token\n +hub: completed, 2 answers, no agent named/);
  expect(transcript).toMatch(/bob +SendMessage at the space's base: .*\n +hub: intent \S+, submitted/);
  expect(transcript).toMatch(/carol +POST \/api\/tasks\/\{id\}\/claim, a 300 s lease\n +hub: working/);
  expect(transcript).toMatch(
    /anyone +GetTask at the space's base, no token\n +hub: completed, with its Landing artifact/,
  );
  expect(transcript).toMatch(
    /alice +board\.create "Launch plan" at \/memory\/, shared with bob: 3 cards, 1 connection\n +hub: completed, board \S+, with the board as a file/,
  );
  expect(transcript).toMatch(
    /bob +board\.remember on it: .*\n +hub: Added 1 card to "Launch plan", which now holds 4 cards\./,
  );
  expect(transcript).toMatch(/bob +board\.recall #launch\n +hub: 3 cards, best first/);
  expect(transcript).toMatch(/carol +board\.recall #launch \(the board is not shared with her\)\n +hub: 0 cards/);
  expect(transcript).toMatch(/alice +"What's on the Launch plan board\?"\n +hub: completed, 4 cards, 1 connection\b/);
}

describe('muster demo', () => {
  it('runs every way of working on a temporary hub, prints who did what, shows no token, and stops', async () => {
    const run = await runMuster(NO_HUB, ['demo']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Muster demo on a temporary hub at http:\/\/127\.0\.0\.1:\d+\//);
    expectEveryWayOfWorking(run.stdout);
    expect(run.stdout).not.toContain('mst_');
    expect(run.stdout).toContain('The temporary hub is stopped and its database removed.');
  }, 60_000);

  it('runs on an existing hub with --url and --admin-token, with handles of its own', async () => {
    const hub = await startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1' });
    hubs.push(hub);
    const run = await runMuster(NO_HUB, [
      'demo',
      '--url',
      hub.url,
      '--admin-token',
      ADMIN_TOKEN,
      '--review-deadline',
      '3',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expectEveryWayOfWorking(run.stdout);
    const handle = run.stdout.match(/alice +registers as (alice-[0-9a-f]{6})/)?.[1];
    expect(handle, run.stdout).toBeDefined();
    // The hub kept what the demo did: the agent, and one task of each kind in its final state.
    expect((await rest(hub, 'GET', `agents/${handle}/.well-known/agent-card.json`)).status).toBe(200);
    const tasks = await hub.db.rows('SELECT kind, state FROM tasks ORDER BY kind');
    expect(tasks).toEqual([
      { kind: 'call', state: 'TASK_STATE_COMPLETED' },
      { kind: 'direct', state: 'TASK_STATE_COMPLETED' },
      { kind: 'intent', state: 'TASK_STATE_COMPLETED' },
      // board.create, board.remember, two board.recall and the plain-words read
      ...Array.from({ length: 5 }, () => ({ kind: 'memory', state: 'TASK_STATE_COMPLETED' })),
      { kind: 'review', state: 'TASK_STATE_COMPLETED' },
    ]);
    expect(run.stdout).not.toContain('mst_');
  }, 60_000);

  it('on a hub with the usual review deadlines and no admin token, says what it skipped and why', async () => {
    const hub = await startTestHub();
    hubs.push(hub);
    const run = await runMuster(NO_HUB, ['demo', '--url', hub.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/alice +SendMessage review\.open, deadline in 5s\n +hub: refused: /);
    expect(run.stdout).toContain('skipped: this hub wants review deadlines further away');
    expect(run.stdout).toContain(
      'skipped: opening a call needs the admin token; pass --admin-token or set MUSTER_ADMIN_TOKEN',
    );
    expect(run.stdout).toMatch(/alice +GetTask\n +hub: completed/);
  }, 60_000);

  it('refuses a --review-deadline that is not a number of seconds, before doing anything', async () => {
    const run = await runMuster(NO_HUB, ['demo', '--url', NO_HUB, '--review-deadline', 'soon']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--review-deadline');
    expect(run.stdout).not.toContain('Muster demo');
  });

  it('--keep leaves the hub running with the tokens and commands to look around; Ctrl-C stops it and removes its folder', async () => {
    const child = spawn(process.execPath, [...MUSTER_COMMAND, 'demo', '--keep'], {
      cwd: root,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await eventually(
        `the demo keeps its hub (output: ${out})`,
        async () => (out.includes('press Ctrl-C') ? true : undefined),
        45_000,
      );
      const url = out.match(/^The hub: (\S+)$/m)?.[1];
      const tokenFile = out.match(/^Its admin token is in (\S+)$/m)?.[1];
      const aliceToken = out.match(/^ {2}alice +(mst_\S+)$/m)?.[1];
      expect([url, tokenFile, aliceToken], out).not.toContain(undefined);
      expect(out).toContain(`export MUSTER_URL=${url}`);
      expect(out).toContain(`MUSTER_TOKEN=${aliceToken} muster sent --state all`);
      // The hub is really there, and the printed token is alice's.
      const me = await rest({ url: url! }, 'GET', 'api/me', { token: aliceToken! });
      expect(me.body).toMatchObject({ kind: 'agent', handle: 'alice' });
      expect(existsSync(tokenFile!)).toBe(true);
      // The commands printed to look around name the demo's own tasks.
      const direct = out.match(/muster get (\S+) +# the direct task/)?.[1];
      expect(out).toMatch(/muster get \S+ +# the review task/);
      expect(out).toMatch(/muster get \S+ +# the open call/);
      const task = await rest({ url: url! }, 'GET', `api/tasks/${direct}`, { token: aliceToken! });
      expect(task.body.status.state).toBe('TASK_STATE_COMPLETED');

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('The temporary hub is stopped and its database removed.');
      expect(existsSync(dirname(tokenFile!))).toBe(false);
      await expect(fetch(`${url}health`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
