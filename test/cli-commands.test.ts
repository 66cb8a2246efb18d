/** The commands that replace curl: agents, tokens, endpoint and forwarding, watch; and what each --help lists. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2AEndpoint } from './helpers/a2a-endpoint.js';
import { runMuster, spawnMuster, type Run } from './helpers/cli.js';
import { ADMIN_TOKEN, register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let endpoint: Awaited<ReturnType<typeof startA2AEndpoint>>;
let ann: Registered, ben: Registered, own: Registered;

const muster = (args: string[], token?: string, env: Record<string, string> = {}): Promise<Run> =>
  runMuster(hub.url, args, token, env);
const json = (r: Run) => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1' });
  endpoint = await startA2AEndpoint();
  // One after the other: the list is in registration order.
  ann = await register(hub, 'cmd-ann', { name: 'Ann', description: 'reads papers' });
  ben = await register(hub, 'cmd-ben');
  own = await register(hub, 'cmd-own', { endpoint: endpoint.base });
});
afterAll(async () => {
  await endpoint?.close();
  await hub?.destroy();
});

// Each test runs CLI processes (a second or more each on a busy machine).
describe('muster agents', { timeout: 120_000 }, () => {
  it('list pages through every agent in registration order, readable and as {items, nextCursor}', async () => {
    const first = json(await muster(['agents', 'list', '--limit', '2', '--json']));
    expect(first.items.map((a: { handle: string }) => a.handle)).toEqual(['cmd-ann', 'cmd-ben']);
    const defaults = ['text/plain', 'application/json']; // the media modes of an agent that declared none
    expect(first.items[0]).toEqual({
      handle: 'cmd-ann',
      agentId: expect.any(String),
      name: 'Ann',
      description: 'reads papers',
      inputModes: defaults,
      outputModes: defaults,
      createdAt: expect.any(String),
      a2a: `${hub.url}agents/cmd-ann/`,
      card: `${hub.url}agents/cmd-ann/.well-known/agent-card.json`,
    });
    expect(typeof first.nextCursor).toBe('string');
    const [second, readable] = await Promise.all([
      muster(['agents', 'list', '--limit', '2', '--cursor', first.nextCursor, '--json']),
      muster(['agents', 'list', '--limit', '2']),
    ]);
    expect(json(second)).toEqual({ items: [expect.objectContaining({ handle: 'cmd-own' })] });
    expect(json(second).items[0]).not.toHaveProperty('endpoint'); // a list shows public profiles only
    expect(readable.stdout).toMatch(/^HANDLE\s+NAME\s+SINCE\s+ABOUT$/m);
    expect(readable.stdout).toMatch(/^cmd-ann\s+Ann\s+\S+Z\s+reads papers$/m);
    expect(readable.stdout).toContain(`More: muster agents list --limit 2 --cursor ${first.nextCursor}`);
  });

  it('show prints a profile; an unknown handle is the hub refusal, exit 1', async () => {
    const [shown, readable, missing] = await Promise.all([
      muster(['agents', 'show', 'cmd-own', '--json']),
      muster(['agents', 'show', 'cmd-ann']),
      muster(['agents', 'show', 'nobody-here', '--json']),
    ]);
    expect(json(shown)).toMatchObject({ handle: 'cmd-own', endpoint: endpoint.base });
    expect(readable.stdout).toMatch(/^cmd-ann \(Ann\)\n {2}A2A base +http:\S+agents\/cmd-ann\//);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: {
        code: 'AGENT_NOT_FOUND',
        status: 404,
        message: "No agent 'nobody-here' on this hub",
        hint: 'Check the handle; the directory (muster agents list) lists every agent',
      },
    });
  });

  it("update sets your own profile (skills from a JSON file); list --tag and --q search it; the hub's refusals exit 1", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'muster-skills-')), 'skills.json');
    writeFileSync(
      file,
      JSON.stringify([{ id: 'read-papers', name: 'Read papers', description: 'Reads and annotates papers' }]),
    );
    const updated = json(
      await muster(
        [
          'agents',
          'update',
          '--description',
          'reads papers closely',
          '--tags',
          'papers, reading',
          '--skills',
          file,
          '--json',
        ],
        ann.token,
      ),
    );
    expect(updated).toMatchObject({
      handle: 'cmd-ann',
      description: 'reads papers closely',
      tags: ['papers', 'reading'],
      skills: [{ id: 'read-papers' }],
    });
    const [tagged, readable] = await Promise.all([
      muster(['agents', 'list', '--tag', 'papers', '--json']),
      muster(['agents', 'show', 'cmd-ann']),
    ]);
    expect(json(tagged).items.map((a: { handle: string }) => a.handle)).toEqual(['cmd-ann']);
    expect(readable.stdout).toMatch(/tags +papers, reading/);
    expect(
      json(await muster(['agents', 'list', '--q', 'READ PAPERS', '--json'])).items.map(
        (a: { handle: string }) => a.handle,
      ),
    ).toEqual(['cmd-ann']);
    const refused = await muster(['agents', 'update', '--tags', 'Not OK', '--json'], ann.token);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'INVALID_PARAMS', fields: [{ field: 'tags[0]' }] });
    expect((await muster(['agents', 'update'], ann.token)).code).not.toBe(0);
  });
});

describe('muster token', { timeout: 120_000 }, () => {
  it('list shows ids only; rotate prints the new token once and ends the old; revoke ends a token by id', async () => {
    const listed = json(await muster(['token', 'list', '--json'], ben.token));
    expect(listed.items).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(ben.token);

    const rotated = json(await muster(['token', 'rotate', '--json'], ben.token));
    expect(rotated).toEqual({ handle: 'cmd-ben', token: expect.stringMatching(/^mst_/) });
    expect((await rest(hub, 'GET', 'api/me', { token: ben.token })).status).toBe(401);
    expect((await rest(hub, 'GET', 'api/me', { token: rotated.token })).body.handle).toBe('cmd-ben');

    const after = json(await muster(['token', 'list', '--json'], rotated.token));
    const live = after.items.find((t: { revokedAt?: string }) => !t.revokedAt);
    expect(after.items).toHaveLength(2);
    const readable = await muster(['token', 'list'], rotated.token);
    expect(readable.stdout).toMatch(new RegExp(`^${live.id}\\s+\\S+Z\\s+\\(live\\)$`, 'm'));

    const revoked = await muster(['token', 'revoke', live.id], rotated.token);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`Revoked token ${live.id} of cmd-ben.\n`);
    expect((await rest(hub, 'GET', 'api/me', { token: rotated.token })).status).toBe(401);
  });

  it('a token id that is not live is the hub refusal; the admin token has no tokens of its own', async () => {
    const [missing, admin] = await Promise.all([
      muster(['token', 'revoke', 'no-such-id', '--json'], ann.token),
      muster(['token', 'list', '--json'], ADMIN_TOKEN),
    ]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(admin.code).toBe(1);
    expect(JSON.parse(admin.stdout).error.code).toBe('FORBIDDEN');
  });
});

describe('muster endpoint and forwarding', { timeout: 120_000 }, () => {
  it('challenge, serve it, verify, then forwarding on sends new tasks to the endpoint; off stops it', async () => {
    const before = await muster(['forwarding', 'on', '--json'], own.token);
    expect(before.code).toBe(1);
    expect(JSON.parse(before.stdout).error).toMatchObject({ code: 'CONFLICT', status: 409 });
    // The hub's hint names REST routes; the CLI says its own commands instead.
    expect(JSON.parse(before.stdout).error.hint).toBe(
      'Verify it: muster endpoint challenge, then muster endpoint verify',
    );
    const early = await muster(['endpoint', 'verify', '--json'], own.token);
    expect(JSON.parse(early.stdout).error.hint).toBe(
      'muster endpoint challenge first, then put it in your card (or serve it) and verify within 15 minutes',
    );

    const challenge = json(await muster(['endpoint', 'challenge', '--json'], own.token));
    expect(challenge.url).toBe(`${endpoint.base}.well-known/muster-challenge`);
    endpoint.serveChallenge(challenge.challenge);
    const verified = await muster(['endpoint', 'verify'], own.token);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^Verified\.\nforwarding +off\nendpoint +http:\S+\nverified +\S+Z/);
    expect(verified.stdout).toContain('muster forwarding on');

    const on = json(await muster(['forwarding', 'on', '--json'], own.token));
    expect(on).toMatchObject({ handle: 'cmd-own', enabled: true, available: true });
    await rest(hub, 'POST', 'agents/cmd-own/', {
      token: ann.token,
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: { messageId: 'fwd-1', role: 'ROLE_USER', parts: [{ text: 'forward me' }] },
          configuration: { returnImmediately: true },
        },
      },
    });
    for (let i = 0; i < 100 && endpoint.received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(endpoint.received[0]?.body.params.message.parts[0]).toEqual({ text: 'forward me' });

    const [off, shown, bad] = await Promise.all([
      muster(['forwarding', 'off'], own.token),
      muster(['forwarding', '--json'], ann.token),
      muster(['forwarding', 'maybe'], own.token),
    ]);
    expect(off.stdout).toMatch(/^forwarding +off$/m);
    expect(json(shown)).toMatchObject({ handle: 'cmd-ann', enabled: false, available: false });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "muster: forwarding takes on or off, not 'maybe'\n  hint: muster forwarding on, muster forwarding off, or muster forwarding to see it\n",
    );
  });
});

/** Collects a running child's stdout, and resolves when `pattern` appears in it. */
function output(child: ReturnType<typeof spawnMuster>) {
  let text = '';
  let errors = '';
  child.stderr!.on('data', (d: Buffer) => (errors += d.toString()));
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    text += d.toString();
    for (const w of waiters.filter((w) => w.pattern.test(text))) w.resolve();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    get text() {
      return text;
    },
    get errors() {
      return errors;
    },
    exited,
    seen: (pattern: RegExp) =>
      pattern.test(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pattern, resolve })),
  };
}

describe('muster watch', { timeout: 120_000 }, () => {
  const send = async (text: string) =>
    (
      await rest(hub, 'POST', 'agents/cmd-ben/', {
        token: ann.token,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
            configuration: { returnImmediately: true },
          },
        },
      })
    ).body.result.task.id as string;
  let benToken = '';
  beforeAll(async () => {
    benToken = (await rest(hub, 'POST', 'api/agents/cmd-ben/token', { token: ADMIN_TOKEN })).body.token;
  });
  const respond = (id: string, state: string, text: string) =>
    rest(hub, 'POST', `api/tasks/${id}/respond`, { token: benToken, body: { state, message: { parts: [{ text }] } } });

  it('prints each update as it happens, survives the hub restarting under it, and exits 0 when the task ends', async () => {
    const id = await send('watch this');
    const watch = output(spawnMuster(hub.url, ['watch', id], ann.token));
    await watch.seen(/^state\s+submitted$/m);
    await respond(id, 'working', 'on it');
    await watch.seen(/working, agent cmd-ben: on it/); // each status message with who said it
    await hub.restart(); // closes every open stream; watch opens it again with Last-Event-ID
    await respond(id, 'input-required', 'which one?');
    await respond(id, 'completed', 'all done');
    expect(await watch.exited).toBe(0);
    const lines = watch.text.trim().split('\n');
    expect(lines.filter((l) => /working, agent cmd-ben: on it/.test(l))).toHaveLength(1); // the resumed stream repeats nothing
    expect(lines.at(-2)).toMatch(/input-required, agent cmd-ben: which one\?$/);
    expect(lines.at(-1)).toMatch(/completed, agent cmd-ben: all done$/);
  });

  it('--json prints one JSON object a line: the task, then each update; an ended task is printed once', async () => {
    const id = await send('watch as json');
    const watch = output(spawnMuster(hub.url, ['watch', id, '--json'], ann.token));
    await watch.seen(/"task"/);
    await respond(id, 'completed', 'done');
    expect(await watch.exited).toBe(0);
    const lines = watch.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].task.id).toBe(id);
    expect(lines.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');

    const ended = await muster(['watch', id, '--json'], ann.token);
    expect(ended.code).toBe(0);
    expect(JSON.parse(ended.stdout).task.status.state).toBe('TASK_STATE_COMPLETED');
    const hidden = await muster(['watch', id, '--json'], own.token);
    expect(hidden.code).toBe(1);
    expect(JSON.parse(hidden.stdout).error.code).toBe('TASK_NOT_FOUND');
  });
});

describe('--help', { timeout: 120_000 }, () => {
  const optionsOf = async (...command: string[]) =>
    [...(await runMuster(undefined, [...command, '--help'])).stdout.matchAll(/^ {2}(-[-\w]+|--[\w-]+)/gm)].map(
      (m) => m[1],
    );

  it('lists only the options each command uses', async () => {
    const [register, whoami, agents, callOpen, digest, logout] = await Promise.all([
      optionsOf('register'),
      optionsOf('whoami'),
      optionsOf('agents', 'list'),
      optionsOf('call', 'open'),
      optionsOf('review', 'digest'),
      optionsOf('logout'),
    ]);
    expect(register).toEqual([
      '--url',
      '--profile',
      '--admin-token',
      '--operator-token',
      '--json',
      '--name',
      '--description',
      '--endpoint',
      '-h',
    ]);
    expect(whoami).toEqual(['--url', '--profile', '--token', '--json', '-h']);
    expect(agents).toEqual(['--url', '--profile', '--json', '--limit', '--cursor', '--q', '--skill', '--tag', '-h']);
    expect(callOpen).toEqual(['--url', '--profile', '--admin-token', '--json', '--title', '-h']);
    expect(digest).toEqual(['--json', '-h']);
    expect(logout).toEqual(['--profile', '--json', '-h']);
  });
});
