/**
 * The --json contract, across every client command: stdout holds exactly one JSON document —
 * the answer on success, {"error": {code, status?, message, hint?}} on any failure — and the
 * exit status says which class of failure it was (1 refused by the hub, 2 usage, 3 unreachable).
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMuster, type Run } from './helpers/cli.js';
import { ADMIN_TOKEN, registerAll, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { contribution, reviewRequest, digestOf } from './helpers/review.js';

let hub: TestHub;
let notAHub: Server;
let notAHubUrl = '';
let closedUrl = '';
let sam: Registered, tia: Registered;
const dir = mkdtempSync(join(tmpdir(), 'muster-cli-contract-'));
const file = (name: string, value: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};

const muster = (args: string[], token?: string, env: Record<string, string> = {}): Promise<Run> =>
  runMuster(hub.url, [...args, '--json'], token, env);

/** The one document on stdout; nothing on stderr. */
function documentOf(r: Run): any {
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

/** A failure: the exit status and the error document, with only the contract's members. */
function failure(
  r: Run,
  exit: number,
  code: string,
): { code: string; status?: number; message: string; hint?: string } {
  expect(r.code, r.stderr).toBe(exit);
  const doc = documentOf(r);
  expect(Object.keys(doc)).toEqual(['error']);
  expect(doc.error.code).toBe(code);
  expect(typeof doc.error.message).toBe('string');
  for (const key of Object.keys(doc.error)) expect(['code', 'status', 'message', 'hint', 'fields']).toContain(key);
  return doc.error;
}

/** Every client command that talks to a hub, with arguments that parse. */
const HUB_COMMANDS: string[][] = [
  ['login', '--token', 'mst_x'],
  ['logout'],
  ['whoami'],
  ['token', 'list'],
  ['token', 'rotate'],
  ['token', 'revoke', 'some-id'],
  ['register', 'somebody'],
  ['send', 'someone', 'hi'],
  ['get', 'some-task'],
  ['inbox'],
  ['sent'],
  ['respond', 'some-task', 'working'],
  ['cancel', 'some-task'],
  ['watch', 'some-task'],
  ['review', 'post', 'REQUEST', '--approved', 'sha256:x'],
  ['contribute', 'some-task', 'CONTRIBUTION'],
  ['answer', 'some-call', 'an answer that is long enough'],
  ['call', 'open', '--title', 'T', 'a question', '--admin-token', 'x'],
  ['call', 'close', 'some-call', '--admin-token', 'x'],
  ['agents', 'list'],
  ['agents', 'show', 'someone'],
  ['agents', 'pause', 'someone', '--operator-token', 'mso_x'],
  ['agents', 'resume', 'someone', '--operator-token', 'mso_x'],
  ['operator', 'create', 'someone', '--admin-token', 'x'],
  ['operator', 'show', 'someone'],
  ['endpoint', 'challenge'],
  ['endpoint', 'verify'],
  ['forwarding', 'on'],
  ['space', 'create', 'some-space'],
  ['space', 'list'],
  ['declare', 'some-space', 'A title', '--footprint', 'src/**'],
  ['intents', 'some-space'],
  ['claim', 'some-intent'],
  ['land', 'some-intent', '--summary', 'done'],
];
const withFiles = (args: string[]) =>
  args.map((a) =>
    a === 'REQUEST'
      ? file('request.json', reviewRequest(600_000))
      : a === 'CONTRIBUTION'
        ? file('c.json', contribution())
        : a,
  );

/** Runs `count` CLI processes at most at once: the machine's cores are shared. */
async function inBatches<T>(items: T[], run: (item: T) => Promise<void>, count = 4): Promise<void> {
  for (let i = 0; i < items.length; i += count) await Promise.all(items.slice(i, i + count).map(run));
}

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1' });
  [sam, tia] = await registerAll(hub, 'json-sam', 'json-tia');
  notAHub = createHttpServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'),
  );
  await new Promise<void>((resolve) => notAHub.listen(0, '127.0.0.1', resolve));
  notAHubUrl = `http://127.0.0.1:${(notAHub.address() as { port: number }).port}/`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}/`;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(async () => {
  await new Promise((resolve) => notAHub?.close(resolve));
  await hub?.destroy();
});

// Each test runs many CLI processes, one after another or a few at once.
describe('the --json contract', { timeout: 180_000 }, () => {
  it('success: each command prints the thing it is about, as one document', async () => {
    const registered = documentOf(await muster(['register', 'json-uma']));
    expect(registered).toMatchObject({ handle: 'json-uma', token: expect.any(String), a2a: expect.any(String) });
    const task = documentOf(await muster(['send', 'json-tia', 'hello'], sam.token));
    expect(task).toMatchObject({ id: expect.any(String), status: { state: 'TASK_STATE_SUBMITTED' } });

    const [me, got, inbox, sent, agents, shown, tokens, digest] = await Promise.all([
      muster(['whoami'], sam.token),
      muster(['get', task.id], sam.token),
      muster(['inbox'], tia.token),
      muster(['sent', '--state', 'all'], sam.token),
      muster(['agents', 'list']),
      muster(['agents', 'show', 'json-sam']),
      muster(['token', 'list'], sam.token),
      runMuster(undefined, ['review', 'digest', file('r.json', reviewRequest(600_000)), '--json']),
    ]);
    expect(documentOf(me)).toMatchObject({ kind: 'agent', handle: 'json-sam' });
    expect(documentOf(got).id).toBe(task.id);
    expect(documentOf(inbox).items.map((t: { id: string }) => t.id)).toEqual([task.id]);
    expect(documentOf(sent).items).toHaveLength(1);
    expect(documentOf(agents).items.map((a: { handle: string }) => a.handle)).toEqual([
      'json-sam',
      'json-tia',
      'json-uma',
    ]);
    expect(documentOf(shown)).toMatchObject({ handle: 'json-sam' });
    expect(documentOf(tokens)).toEqual({ items: [expect.objectContaining({ id: expect.any(String) })] });
    expect(documentOf(digest)).toEqual({ digest: expect.stringMatching(/^sha256:/) });

    expect(documentOf(await muster(['respond', task.id, 'working'], tia.token)).status.state).toBe(
      'TASK_STATE_WORKING',
    );
    expect(documentOf(await muster(['cancel', task.id], sam.token)).status.state).toBe('TASK_STATE_CANCELED');

    const call = documentOf(
      await muster([
        'call',
        'open',
        '--title',
        'Contract',
        'What should the next issue cover?',
        '--admin-token',
        ADMIN_TOKEN,
      ]),
    );
    expect(call).toMatchObject({
      id: expect.any(String),
      status: { state: 'TASK_STATE_WORKING' },
      metadata: { muster: { kind: 'call' } },
    });
    expect(documentOf(await muster(['answer', call.id, 'The delivery guarantees, with examples.'], tia.token)).id).toBe(
      call.id,
    );
    expect(
      documentOf(await muster(['call', 'close', call.id], undefined, { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN })).status.state,
    ).toBe('TASK_STATE_COMPLETED');

    const request = reviewRequest(600_000, { title: 'Contract review' });
    const posted = documentOf(
      await muster(['review', 'post', file('post.json', request), '--approved', digestOf(request)], sam.token),
    );
    expect(posted.metadata.muster.kind).toBe('review');
    expect(documentOf(await muster(['contribute', posted.id, file('mine.json', contribution())], tia.token)).id).toBe(
      posted.id,
    );
  });

  it('a refusal by the hub: exit 1 and the hub code and HTTP status, REST and JSON-RPC alike', async () => {
    const [get, send, respond, call, revoke] = await Promise.all([
      muster(['get', 'no-such-task'], sam.token),
      muster(['send', 'nobody-at-all', 'hi'], sam.token),
      muster(['respond', 'no-such-task', 'working'], sam.token),
      muster(['call', 'open', '--title', 'T', 'a question?', '--admin-token', sam.token]),
      muster(['token', 'revoke', 'no-such-id'], sam.token),
    ]);
    expect(failure(get, 1, 'TASK_NOT_FOUND').status).toBe(404);
    expect(failure(send, 1, 'AGENT_NOT_FOUND').status).toBe(404); // JSON-RPC: the ErrorInfo reason, not the envelope
    expect(failure(respond, 1, 'TASK_NOT_FOUND').status).toBe(404);
    expect(failure(call, 1, 'FORBIDDEN').status).toBe(403);
    expect(failure(revoke, 1, 'NOT_FOUND').status).toBe(404);
  });

  it('bad usage: exit 2 for commander refusals, bad --data and bad files, and a missing admin token', async () => {
    const [unknown, missing, badNumber, badData, badFile, noAdmin] = await Promise.all([
      muster(['inbox', '--no-such-flag'], sam.token),
      muster(['get'], sam.token),
      muster(['inbox', '--limit', 'many'], sam.token),
      muster(['send', 'json-tia', 'hi', '--data', '{nope'], sam.token),
      muster(['contribute', 'some-task', file('broken.json', '{broken')], sam.token),
      muster(['call', 'close', 'some-call']),
    ]);
    expect(failure(unknown, 2, 'USAGE')).toEqual({
      code: 'USAGE',
      message: "unknown option '--no-such-flag'",
      hint: 'See muster inbox --help',
    });
    expect(failure(missing, 2, 'USAGE').message).toBe("missing required argument 'taskId'");
    expect(failure(badNumber, 2, 'USAGE').message).toContain('must be a whole number');
    expect(failure(badData, 2, 'BAD_JSON').hint).toBe(`For example --data '{"priority":"high"}'`);
    failure(badFile, 2, 'BAD_JSON');
    expect(failure(noAdmin, 2, 'USAGE').hint).toContain('--admin-token or set MUSTER_ADMIN_TOKEN');
    // Without --json, commander's refusal is exit 2 in the CLI's own shape: `muster: …` and the hint, nothing on stdout.
    const plain = await runMuster(hub.url, ['inbox', '--no-such-flag']);
    expect(plain).toEqual({
      code: 2,
      stdout: '',
      stderr: "muster: unknown option '--no-such-flag'\n  hint: See muster inbox --help\n",
    });
  });

  it('bad values checked before sending: --limit above 50, a <state> respond cannot set, an unknown --expected-state', async () => {
    const [bigLimit, badState, submitted, badExpected, plain] = await Promise.all([
      muster(['inbox', '--limit', '51'], sam.token),
      muster(['respond', 'some-task', 'done'], sam.token),
      muster(['respond', 'some-task', 'submitted'], sam.token),
      muster(['respond', 'some-task', 'working', '--expected-state', 'busy'], sam.token),
      runMuster(hub.url, ['respond', 'some-task', 'done'], sam.token),
    ]);
    expect(failure(bigLimit, 2, 'USAGE').message).toBe("--limit '51': must be a whole number from 1 to 50");
    const allowed = 'working, input-required, completed, failed, rejected (or a TASK_STATE_* name)';
    expect(failure(badState, 2, 'USAGE').message).toBe(
      `<state> 'done' is not a state a response sets: use one of ${allowed}`,
    );
    expect(failure(submitted, 2, 'USAGE').message).toContain("<state> 'submitted'");
    expect(failure(badExpected, 2, 'USAGE').message).toMatch(
      /^--expected-state 'busy': must be one of submitted, working, .*input-required/,
    );
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain(`<state> 'done' is not a state a response sets: use one of ${allowed}`);
    // A TASK_STATE_* name passes the local check and reaches the hub (which knows no such task).
    failure(
      await muster(
        ['respond', 'no-such-task', 'TASK_STATE_COMPLETED', '--expected-state', 'TASK_STATE_SUBMITTED'],
        sam.token,
      ),
      1,
      'TASK_NOT_FOUND',
    );
  });

  it("usage errors in the CLI's shape: --state checked before sending, the nearest command or option suggested", async () => {
    const [state, command, option] = await Promise.all([
      runMuster(hub.url, ['inbox', '--state', 'weird'], sam.token),
      runMuster(hub.url, ['inbx']),
      runMuster(hub.url, ['inbox', '--lmit', '3'], sam.token),
    ]);
    expect(state.code).toBe(2);
    expect(state.stderr).toMatch(
      /^muster: --state 'weird': must be open, all, or one of submitted, .*\n {2}hint: See muster inbox --help\n$/,
    );
    expect(command).toEqual({
      code: 2,
      stdout: '',
      stderr: "muster: unknown command 'inbx'\n  hint: Did you mean muster inbox? See muster --help\n",
    });
    expect(option.code).toBe(2);
    expect(option.stderr).toBe(
      "muster: unknown option '--lmit'\n  hint: Did you mean --limit? See muster inbox --help\n",
    );
  });

  it('an unreachable hub (a closed port) is exit 3 with UNREACHABLE, for every command that talks to one', async () => {
    await inBatches(HUB_COMMANDS, async (args) => {
      const r = await runMuster(closedUrl, [...withFiles(args), '--json'], 'mst_some-token');
      if (args[0] === 'logout') return void expect(r.code).toBe(0); // logout only forgets a local file
      expect(failure(r, 3, 'UNREACHABLE').message, args.join(' ')).toBe(
        `cannot reach the hub at ${closedUrl}: ECONNREFUSED`,
      );
    });
  });

  it('what answers is not a hub: exit 3 with NOT_A_HUB; a --url that is no URL: exit 2', async () => {
    const [html, send, badUrl] = await Promise.all([
      runMuster(notAHubUrl, ['whoami', '--json'], sam.token),
      runMuster(notAHubUrl, ['send', 'x', 'hi', '--json'], sam.token),
      runMuster('not a url', ['whoami', '--json'], sam.token),
    ]);
    expect(failure(html, 3, 'NOT_A_HUB').message).toContain('is it a Muster hub?');
    failure(send, 3, 'NOT_A_HUB');
    expect(failure(badUrl, 2, 'USAGE').hint).toBe('For example --url http://127.0.0.1:7420/');
  });

  it('every command refuses an unknown option with the one error document', async () => {
    await inBatches([...HUB_COMMANDS, ['review', 'digest', 'x'], ['review', 'preview', 'x']], async (args) => {
      const r = await runMuster(closedUrl, [...withFiles(args), '--bogus', '--json']);
      expect(failure(r, 2, 'USAGE').message, args.join(' ')).toBe("unknown option '--bogus'");
    });
  });
});
