/** The client commands of the `muster` binary, run as a real child process against a real hub. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest, startTestHub, type TestHub } from './helpers/hub.js';
import { runMuster, type Run } from './helpers/cli.js';

let hub: TestHub;

const muster = (args: string[], token?: string, env: Record<string, string> = {}): Promise<Run> =>
  runMuster(hub.url, args, token, env);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Each test runs CLI processes (a second or more each on a busy machine).
describe('muster client commands', { timeout: 120_000 }, () => {
  let alice = '';
  let bob = '';
  let taskId = '';

  beforeAll(async () => {
    hub = await startTestHub();
  });

  afterAll(async () => {
    await hub?.destroy();
  });

  it('registers agents; --json answers the token, the readable form shows it once with a note', async () => {
    const [a, b, c] = await Promise.all([
      muster(['register', 'alice', '--name', 'Alice A', '--json']),
      muster(['register', 'bob', '--json']),
      muster(['register', 'carol']),
    ]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const ja = JSON.parse(a.stdout);
    const jb = JSON.parse(b.stdout);
    expect(ja).toMatchObject({ handle: 'alice', name: 'Alice A', a2a: `${hub.url}agents/alice/` });
    expect(jb.handle).toBe('bob');
    expect(typeof ja.token).toBe('string');
    expect(ja.token.length).toBeGreaterThan(16);
    alice = ja.token;
    bob = jb.token;

    expect(c.code).toBe(0);
    expect(c.stdout).toContain(`${hub.url}agents/carol/`);
    expect(c.stdout).toMatch(/shown this once/);
    const exported = /export MUSTER_TOKEN=(\S+)/.exec(c.stdout)?.[1];
    expect(exported).toBeDefined();
    // The printed token is the real one: it authenticates as carol.
    const me = await rest(hub, 'GET', 'api/me', { token: exported! });
    expect(me.body).toMatchObject({ kind: 'agent', handle: 'carol' });
  });

  it('a taken handle exits 1 with the hub message and one hint line on stderr', async () => {
    const r = await muster(['register', 'alice']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("muster: The handle 'alice' is taken\n  hint: Choose another handle\n");
  });

  it('whoami names the token owner and never prints the token', async () => {
    const r = await muster(['whoami'], alice);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^alice \(Alice A\)/);
    expect(r.stdout).not.toContain(alice);
    const j = await muster(['whoami', '--json'], alice);
    expect(JSON.parse(j.stdout)).toMatchObject({ kind: 'agent', handle: 'alice' });
    expect(j.stdout).not.toContain(alice);
  });

  it('send opens a task at the target with text and data parts', async () => {
    const r = await muster(['send', 'bob', 'please', 'review', 'this', '--data', '{"priority":"high"}'], alice);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^state\s+submitted$/m);
    expect(r.stdout).toMatch(/^from\s+alice → bob$/m);
    taskId = /^task\s+(\S+)$/m.exec(r.stdout)?.[1] ?? '';
    expect(taskId).not.toBe('');

    const task = await rest(hub, 'GET', `api/tasks/${taskId}`, { token: bob });
    expect(task.status).toBe(200);
    expect(task.body.history[0].role).toBe('ROLE_USER');
    expect(task.body.history[0].parts).toEqual([{ text: 'please review this' }, { data: { priority: 'high' } }]);
  });

  it('send --json prints the Task itself; --message-id makes a resend idempotent', async () => {
    const first = await muster(['send', 'bob', 'second', 'task', '--message-id', 'm-42', '--json'], alice);
    expect(first.code).toBe(0);
    const task = JSON.parse(first.stdout);
    expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(task.metadata.muster).toMatchObject({ from: 'alice', to: 'bob' });
    expect(task).not.toHaveProperty('task');
    const again = await muster(['send', 'bob', 'second', 'task', '--message-id', 'm-42', '--json'], alice);
    expect(JSON.parse(again.stdout).id).toBe(task.id);
  });

  it('inbox lists the task for the target only, and never prints a token', async () => {
    const [inbox, json, aliceInbox] = await Promise.all([
      muster(['inbox'], bob),
      muster(['inbox', '--json'], bob),
      muster(['inbox'], alice),
    ]);
    expect(inbox.code).toBe(0);
    const line = inbox.stdout.split('\n').find((l) => l.startsWith(taskId));
    expect(line).toBeDefined();
    expect(line).toMatch(/submitted\s+alice \(Alice A\)\s+\S+Z\s+please review this$/);
    const page = JSON.parse(json.stdout);
    expect(Object.keys(page)).toEqual(['items']);
    expect(page.items.map((t: { id: string }) => t.id)).toContain(taskId);
    expect(page.items.find((t: { id: string }) => t.id === taskId).counterparty.handle).toBe('alice');
    expect(aliceInbox.code).toBe(0);
    expect(aliceInbox.stdout).not.toContain(taskId);
    expect(aliceInbox.stdout).toContain('No open tasks in your inbox.');
    for (const out of [inbox, json]) {
      expect(out.stdout + out.stderr).not.toContain(bob);
      expect(out.stdout + out.stderr).not.toContain(alice);
    }
  });

  it('inbox pages with --limit and prints the next command with the cursor', async () => {
    const first = await muster(['inbox', '--limit', '1'], bob);
    expect(first.code).toBe(0);
    const next = /^More: muster inbox --limit 1 --cursor (\S+)$/m.exec(first.stdout)?.[1];
    expect(next).toBeDefined();
    const second = await muster(['inbox', '--limit', '1', '--cursor', next!, '--json'], bob);
    const firstJson = JSON.parse((await muster(['inbox', '--limit', '1', '--json'], bob)).stdout);
    expect(firstJson.nextCursor).toBe(next);
    expect(JSON.parse(second.stdout).items[0].id).not.toBe(firstJson.items[0].id);
  });

  it('respond moves the task to working, then completed with a message and an artifact', async () => {
    const working = await muster(['respond', taskId, 'working', 'on', 'it'], bob);
    expect(working.stderr).toBe('');
    expect(working.code).toBe(0);
    expect(working.stdout).toMatch(/^state\s+working$/m);
    const done = await muster(
      [
        'respond',
        taskId,
        'completed',
        'all done',
        '--artifact-text',
        'the report body',
        '--artifact-name',
        'report',
        '--expected-state',
        'working',
      ],
      bob,
    );
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^state\s+completed$/m);

    const task = await rest(hub, 'GET', `api/tasks/${taskId}`, { token: alice });
    expect(task.body.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.body.status.message.parts).toEqual([{ text: 'all done' }]);
    expect(task.body.artifacts).toHaveLength(1);
    expect(task.body.artifacts[0]).toMatchObject({ name: 'report', parts: [{ text: 'the report body' }] });
  });

  it('respond from a state the task is no longer in exits 1 with the conflict', async () => {
    const r = await muster(['respond', taskId, 'completed', '--expected-state', 'working'], bob);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^muster: The task is TASK_STATE_COMPLETED, not TASK_STATE_WORKING/);
  });

  it('get shows state, parties, the history and the artifact, and no token', async () => {
    const r = await muster(['get', taskId], alice);
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/^state\s+completed$/m);
    expect(out).toMatch(/^from\s+alice → bob$/m);
    expect(out).toMatch(/Status message \(agent bob\):\n {2}all done/);
    expect(out).toMatch(
      /History \(3\):\n {2}user alice: +please review this\n +\{"priority":"high"\}\n {2}agent bob: +on it\n {2}agent bob: +all done/,
    );
    expect(out).toMatch(/Artifacts \(1\):\n {2}report \([^)]+\):\n {4}the report body/);
    expect(out + r.stderr).not.toContain(alice);
    expect(out + r.stderr).not.toContain(bob);

    const last = await muster(['get', taskId, '--history', '1'], alice);
    expect(last.stdout).toContain('History (1):');
    expect(last.stdout).not.toContain('please review this');

    const json = await muster(['get', taskId, '--json'], bob);
    const task = JSON.parse(json.stdout);
    expect(task.id).toBe(taskId);
    expect(task.history).toHaveLength(3);
    expect(json.stdout).not.toContain(bob);
    expect(json.stdout).not.toContain(alice);
  });

  it('sent lists the task with --state all, and not among the open ones', async () => {
    const [all, open, json] = await Promise.all([
      muster(['sent', '--state', 'all'], alice),
      muster(['sent'], alice),
      muster(['sent', '--state', 'completed', '--json'], alice),
    ]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^ID\s+STATE\s+TO\s+UPDATED\s+LAST MESSAGE$/m);
    expect(all.stdout.split('\n').find((l) => l.startsWith(taskId))).toMatch(/completed\s+bob\s+\S+Z\s+all done$/);
    expect(open.code).toBe(0);
    expect(open.stdout).not.toContain(taskId);
    expect(JSON.parse(json.stdout).items.map((t: { id: string }) => t.id)).toEqual([taskId]);
  });

  it('cancel of a completed task exits 1 with the message on stderr (JSON on stdout with --json)', async () => {
    const r = await muster(['cancel', taskId], alice);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`muster: Task ${taskId} is TASK_STATE_COMPLETED and cannot be canceled\n`);
    const j = await muster(['cancel', taskId, '--json'], alice);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'TASK_NOT_CANCELABLE', status: 409 });
  });

  it('cancel of an open task cancels it with the reason', async () => {
    const sent = await muster(['send', 'bob', 'never mind', '--json'], alice);
    const id = JSON.parse(sent.stdout).id as string;
    const r = await muster(['cancel', id, '--reason', 'changed my mind'], alice);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^state\s+canceled$/m);
    expect(r.stdout).toMatch(/^reason\s+changed my mind$/m);
  });

  it('a bad token exits 1 with the 401 message, on REST and on JSON-RPC', async () => {
    const [inbox, send] = await Promise.all([
      muster(['inbox'], 'not-a-token'),
      muster(['send', 'bob', 'hi'], 'not-a-token'),
    ]);
    for (const r of [inbox, send]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^muster: The bearer token is not valid or has been revoked\n {2}hint: [^\n]+\n$/);
      expect(r.stderr).not.toContain('not-a-token');
    }
    // JSON-RPC and REST refusals print the same document: the ErrorInfo reason as the code.
    const [rpcJson, restJson] = await Promise.all([
      muster(['send', 'bob', 'hi', '--json'], 'not-a-token'),
      muster(['inbox', '--json'], 'not-a-token'),
    ]);
    for (const r of [rpcJson, restJson]) {
      expect(r.code).toBe(1);
      const { error } = JSON.parse(r.stdout);
      expect(error).toMatchObject({
        code: 'UNAUTHENTICATED',
        status: 401,
        message: 'The bearer token is not valid or has been revoked',
      });
      expect(Object.keys(error).sort()).toEqual(['code', 'hint', 'message', 'status']);
    }
  });

  it('no token at all on the inbox says how to pass one', async () => {
    const r = await muster(['inbox']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'muster: The inbox needs a bearer token\n  hint: Pass --token, set MUSTER_TOKEN, or run muster login\n',
    );
  });

  it('an unreachable hub is one clear line and a hint, exit 3', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/`;
    const r = await muster(['whoami', '--url', url], alice);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `muster: cannot reach the hub at ${url}: ECONNREFUSED\n  hint: Check --url and that the hub is running\n`,
    );
  });

  it('bad input is refused before anything is sent', async () => {
    const r = await muster(['send', 'bob', 'hi', '--data', '{nope'], alice);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^muster: --data is not valid JSON[^\n]*\n {2}hint: For example --data '\{"priority":"high"\}'\n$/,
    );
    const inbox = await rest(hub, 'GET', 'api/inbox?state=all', { token: bob });
    expect(
      inbox.body.data.some(
        (t: { lastMessage?: { parts: { text?: string }[] } }) => t.lastMessage?.parts[0]?.text === 'hi',
      ),
    ).toBe(false);
  });
});

describe('help and config for people', { timeout: 60_000 }, () => {
  it('muster --help lists the commands in groups, then examples; each command says what its --json prints', async () => {
    const [top, watch, attach, mcp] = await Promise.all([
      runMuster(undefined, ['--help']),
      runMuster(undefined, ['watch', '--help']),
      runMuster(undefined, ['attach', '--help']),
      runMuster(undefined, ['mcp', '--help']),
    ]);
    expect(top.code).toBe(0);
    const headings = top.stdout.split('\n').filter((l) => /^[A-Z][\w ]+:$/.test(l));
    expect(headings).toEqual(
      expect.arrayContaining([
        'Run a hub:',
        'Tasks:',
        'Reviews and calls:',
        'Spaces and intents:',
        'Memory boards:',
        'Connect an agent:',
        'Examples:',
      ]),
    );
    expect(top.stdout).toMatch(/Tasks:\n {2}send \[options\] <handle> <text\.\.\.>/);
    expect(top.stdout).toContain('$ muster send bob');
    expect(watch.stdout.replace(/\s+/g, ' ')).toContain('--json print JSON Lines: each update as the hub sent it');
    expect(attach.stdout.replace(/\s+/g, ' ')).toContain('--json print JSON Lines: one object for each handled event');
    expect(mcp.code).toBe(0);
    expect(mcp.stdout).not.toContain('--json');
  });

  it('muster config says where a generated admin token is, never the token', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'muster-config-'));
    const db = ['--db', `sqlite:${join(folder, 'hub.db')}`];
    const before = await runMuster(undefined, ['config', ...db]);
    expect(before.stdout).toMatch(
      new RegExp(`^adminToken\\s+not set: serve generates one into ${join(folder, 'admin-token')}`, 'm'),
    );
    writeFileSync(join(folder, 'admin-token'), 'mat_secret-admin-token\n', { mode: 0o600 });
    const after = await runMuster(undefined, ['config', ...db, '--json']);
    expect(JSON.parse(after.stdout).adminToken.value).toBe(`generated, in ${join(folder, 'admin-token')}`);
    expect(after.stdout).not.toContain('mat_secret');
  });
});
