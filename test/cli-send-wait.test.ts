/**
 * `muster send` and waiting: by default the hub answers at once and the command says how to follow
 * the task; `--wait N` follows it and shows the agent's answer; bare `--wait` takes the hub's own
 * blocking wait (here 2 s) and says when it ran out. A request the hub holds always has a timeout
 * longer than the wait. The real binary against a real hub (SQLite, or PostgreSQL under MUSTER_TEST_PG).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONGEST_HUB_WAIT_S, timeoutAround } from '../src/client/http.js';
import { register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { runMuster, spawnMuster, type Run } from './helpers/cli.js';

const HUB_WAIT_S = 2;

/** The child's output and exit, once it ends. */
function ended(child: ReturnType<typeof spawnMuster>): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the request around a wait', () => {
  it('always outlasts the wait it asked for, the longest a hub waits included', () => {
    expect(timeoutAround(LONGEST_HUB_WAIT_S)).toBeGreaterThan(LONGEST_HUB_WAIT_S * 1000);
    expect(timeoutAround(30)).toBeGreaterThan(30_000); // the hub's default wait: a 30 s timeout made it "unreachable"
    expect(timeoutAround(0)).toBe(30_000); // a request that does not wait keeps the usual timeout
  });
});

describe('muster send and --wait', { timeout: 60_000 }, () => {
  let hub: TestHub;
  let sam: Registered;
  let tia: Registered;
  const muster = (args: string[]) => runMuster(hub.url, args, sam.token);

  /** tia's next new task, answered by her after `afterMs` with a message and an artifact. */
  async function tiaAnswersNext(afterMs: number): Promise<string> {
    for (let tries = 0; tries < 200; tries++) {
      const inbox = await rest(hub, 'GET', 'api/inbox', { token: tia.token });
      const fresh = (inbox.body.data as { id: string; state: string }[]).find(
        (t) => t.state === 'TASK_STATE_SUBMITTED',
      );
      if (fresh) {
        await new Promise((r) => setTimeout(r, afterMs));
        const body = {
          state: 'TASK_STATE_COMPLETED',
          message: { parts: [{ text: 'the answer is 42' }] },
          artifacts: [{ name: 'notes', parts: [{ text: 'worked it out' }] }],
        };
        expect((await rest(hub, 'POST', `api/tasks/${fresh.id}/respond`, { token: tia.token, body })).status).toBe(200);
        return fresh.id;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no task reached tia');
  }

  beforeAll(async () => {
    hub = await startTestHub({ MUSTER_BLOCKING_WAIT_S: String(HUB_WAIT_S) });
    sam = await register(hub, 'wait-sam');
    tia = await register(hub, 'wait-tia');
  });
  afterAll(() => hub?.destroy());

  it('answers at once by default, and says how to follow the task', async () => {
    const r = await muster(['send', 'wait-tia', 'are you there?']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = /^task\s+(\S+)$/m.exec(r.stdout)?.[1];
    expect(r.stdout).toMatch(/^state\s+submitted$/m);
    expect(r.stdout).toContain(`wait-tia has not answered yet. Follow the task: muster watch ${id}`);
    // Nobody answers tia's tasks: a send that blocked would come back after the hub's wait, with its note.
    const json = await muster(['send', 'wait-tia', 'still there?', '--json']);
    expect(JSON.parse(json.stdout).status.state).toBe('TASK_STATE_SUBMITTED');
    expect(JSON.parse(json.stdout).metadata.muster).toMatchObject({ to: 'wait-tia' });
    expect(JSON.parse(json.stdout).metadata.muster.wait).toBeUndefined();
    await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: tia.token, body: { state: 'TASK_STATE_REJECTED' } });
    await rest(hub, 'POST', `api/tasks/${JSON.parse(json.stdout).id}/respond`, {
      token: tia.token,
      body: { state: 'TASK_STATE_REJECTED' },
    });
  });

  it('--wait 3 shows the answer an agent gives after a second: its message and artifacts', async () => {
    const run = ended(spawnMuster(hub.url, ['send', 'wait-tia', 'what is six times seven?', '--wait', '3'], sam.token));
    const id = await tiaAnswersNext(1000);
    const r = await run;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`task     ${id}`);
    expect(r.stdout).toMatch(/^state\s+completed$/m);
    expect(r.stdout).toMatch(/^Answer:\n {2}the answer is 42$/m);
    expect(r.stdout).toMatch(/notes \(\S+\):\n {4}worked it out/);
    expect(r.stdout).not.toContain('muster watch');
  });

  it('--wait 1 to an agent that does not answer: the task as it stands, with the wait that ran out and how to follow it', async () => {
    const r = await muster(['send', 'wait-tia', 'anyone?', '--wait', '1', '--json']);
    expect(r.code).toBe(0);
    const task = JSON.parse(r.stdout);
    expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(task.metadata.muster).toMatchObject({
      from: 'wait-sam',
      to: 'wait-tia',
      wait: { ranOut: true, seconds: 1 },
    });
    await rest(hub, 'POST', `api/tasks/${task.id}/respond`, {
      token: tia.token,
      body: { state: 'TASK_STATE_REJECTED' },
    });
  });

  it("bare --wait takes the hub's wait: the answer when it comes in time, else the hub's note that it ran out", async () => {
    const run = ended(spawnMuster(hub.url, ['send', 'wait-tia', 'quick one', '--wait'], sam.token));
    await tiaAnswersNext(500);
    const answered = await run;
    expect(answered.code).toBe(0);
    expect(answered.stdout).toMatch(/^Answer:\n {2}the answer is 42$/m);

    const start = Date.now();
    const r = await muster(['send', 'wait-tia', 'nobody home', '--wait']);
    expect(Date.now() - start).toBeGreaterThanOrEqual(HUB_WAIT_S * 1000);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^state\s+submitted$/m);
    const id = /^task\s+(\S+)$/m.exec(r.stdout)?.[1];
    expect(r.stdout).toContain(
      `The wait ran out after ${HUB_WAIT_S} s; wait-tia may still answer. Follow the task: muster watch ${id}`,
    );
  });

  it('refuses a --wait that is not a whole number of seconds, locally (exit 2)', async () => {
    const r = await muster(['send', 'wait-tia', 'hi', '--wait', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--wait/);
  });
});
