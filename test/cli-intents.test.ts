/**
 * Spaces and work intents by CLI: a real hub, the real `muster` process. A worker loop from
 * space create to land, the refusals in words (exit 1), usage errors before sending (exit 2),
 * the --json documents, and withdraw. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMuster, type Run } from './helpers/cli.js';
import { eventually } from './helpers/nodes.js';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered;

const muster = (args: string[], token?: string): Promise<Run> => runMuster(hub.url, args, token);
/** The one JSON document of a successful --json run. */
const json = (r: Run) => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};
/** A readable success: its stdout. */
const said = (r: Run): string => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

beforeAll(async () => {
  hub = await startTestHub();
  [owner, orch, worker, other] = await registerAll(hub, 'cli-owner', 'cli-orch', 'cli-worker', 'cli-other');
});
afterAll(() => hub.destroy());

// Each test runs a dozen or more CLI processes one after another (several seconds each on a busy machine).
describe('muster space, declare, intents and the worker loop', { timeout: 240_000 }, () => {
  it('spaces: create, members, show, list and set, readable and --json', async () => {
    const made = json(
      await muster(
        [
          'space',
          'create',
          'cli-links',
          '--description',
          'The links service',
          '--orchestrator-priority',
          '3',
          '--json',
        ],
        owner.token,
      ),
    );
    expect(made).toMatchObject({
      name: 'cli-links',
      description: 'The links service',
      claim: 'members',
      owner: 'cli-owner',
      orchestratorPriority: 3,
      a2a: `${hub.url}spaces/cli-links/`,
    });
    const readable = said(await muster(['space', 'create', 'cli-other', '--claim', 'open'], owner.token));
    expect(readable).toMatch(
      /^made space cli-other; add members with: muster space member add cli-other <handle> --role worker\n/,
    );
    expect(readable).toMatch(/^claim\s+open \(any registered agent claims\)$/m);

    const [asOrch, asWorker, asOther] = await Promise.all([
      muster(['space', 'member', 'add', 'cli-links', orch.handle, '--role', 'orchestrator'], owner.token),
      muster(['space', 'member', 'add', 'cli-links', worker.handle, '--role', 'worker', '--json'], owner.token),
      muster(['space', 'member', 'add', 'cli-links', other.handle, '--role', 'worker'], owner.token),
    ]);
    expect(said(asOrch).trim()).toBe('cli-orch is an orchestrator in space cli-links');
    expect(json(asWorker)).toEqual({
      space: 'cli-links',
      handle: 'cli-worker',
      role: 'worker',
      addedAt: expect.any(String),
    });
    expect(said(asOther).trim()).toBe('cli-other is a worker in space cli-links');

    const shown = said(await muster(['space', 'show', 'cli-links']));
    expect(shown).toMatch(/^space\s+cli-links$/m);
    expect(shown).toMatch(/^orchestrators\s+declare at priority 3 at most$/m);
    expect(shown).toMatch(/^MEMBER\s+ROLE\s+SINCE$/m);
    expect(shown).toMatch(/^cli-orch\s+orchestrator\s+\S+Z$/m);
    expect(
      json(await muster(['space', 'show', 'cli-links', '--json'])).members.map((m: { handle: string }) => m.handle),
    ).toEqual(['cli-orch', 'cli-other', 'cli-worker']);

    const first = json(await muster(['space', 'list', '--limit', '1', '--json']));
    expect(first.items.map((s: { name: string }) => s.name)).toEqual(['cli-links']);
    const list = said(await muster(['space', 'list', '--limit', '1']));
    expect(list).toMatch(/^NAME\s+CLAIM\s+OWNER\s+CAP\s+ABOUT$/m);
    expect(list).toMatch(/^cli-links\s+members\s+cli-owner\s+3\s+The links service$/m);
    expect(list).toContain(`More: muster space list --limit 1 --cursor ${first.nextCursor}`);

    const set = json(
      await muster(
        ['space', 'set', 'cli-other', '--description', 'Other work', '--claim', 'members', '--json'],
        owner.token,
      ),
    );
    expect(set).toMatchObject({ name: 'cli-other', description: 'Other work', claim: 'members' });
    expect(
      json(await muster(['space', 'set', 'cli-other', '--no-description', '--json'], owner.token)).description,
    ).toBeUndefined();
    const notYours = await muster(['space', 'set', 'cli-other', '--claim', 'open'], worker.token);
    expect(notYours.code).toBe(1);
    expect(notYours.stderr).toBe(
      'muster: Only the owner of space cli-other or the admin may change a space\n  hint: The owner is cli-owner\n',
    );

    const removed = await muster(['space', 'member', 'remove', 'cli-links', other.handle, '--json'], owner.token);
    expect(json(removed)).toEqual({ space: 'cli-links', handle: 'cli-other', removed: true });
    const again = await muster(['space', 'member', 'remove', 'cli-links', other.handle], owner.token);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'muster: cli-other is not a member of space cli-links\n  hint: List the members with muster space show cli-links\n',
    );
    await muster(['space', 'member', 'add', 'cli-links', other.handle, '--role', 'worker'], owner.token);
  });

  it('a worker loop: declare, intents, claim, heartbeat, progress, land with files → completed', async () => {
    const declared = json(
      await muster(
        [
          'declare',
          'cli-links',
          'Add rate limiting to /api/links',
          '--why',
          'Anonymous callers flood it.',
          '--footprint',
          'src/links/**',
          '--footprint',
          'test/links.test.ts',
          '--acceptance',
          'a 61st request gets 429',
          '--priority',
          '2',
          '--json',
        ],
        orch.token,
      ),
    );
    expect(declared.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(declared.contextId).toBe('cli-links');
    expect(declared.metadata.muster).toMatchObject({
      kind: 'intent',
      space: 'cli-links',
      title: 'Add rate limiting to /api/links',
      why: 'Anonymous callers flood it.',
      footprint: ['src/links/**', 'test/links.test.ts'],
      acceptance: ['a 61st request gets 429'],
      priority: 2,
    });
    const id: string = declared.id;

    const capped = said(
      await muster(['declare', 'cli-links', 'Urgent thing', '--footprint', 'u/**', '--priority', '9'], orch.token),
    );
    const cappedId =
      /^declared intent (\S+) in space cli-links at priority 3, capped: you asked for 9 \(submitted\)$/m.exec(
        capped,
      )?.[1];
    expect(cappedId).toBeDefined();
    expect(capped).toContain(
      `follow it with: muster get ${cappedId}; withdraw it with: muster withdraw ${cappedId} --space cli-links`,
    );
    const twin = said(
      await muster(
        ['declare', 'cli-links', 'add rate LIMITING to /api/links!', '--footprint', 'src/links/limit.ts'],
        orch.token,
      ),
    );
    expect(twin).toMatch(
      new RegExp(
        `^declared nothing: this repeats intent ${id} \\(submitted\\); pass --force to declare it anyway$`,
        'm',
      ),
    );

    const listed = json(await muster(['intents', 'cli-links', '--json']));
    expect(listed.items.map((i: { id: string }) => i.id)).toEqual([cappedId, id]); // highest priority first
    expect(listed.items[1]).toMatchObject({
      id,
      title: 'Add rate limiting to /api/links',
      priority: 2,
      state: 'TASK_STATE_SUBMITTED',
      footprint: ['src/links/**', 'test/links.test.ts'],
    });
    const table = said(await muster(['intents', 'cli-links', '--limit', '1']));
    expect(table).toMatch(/^ID\s+PRI\s+STATE\s+WORKER\s+TITLE\s+FOOTPRINT$/m);
    expect(table).toMatch(new RegExp(`^${cappedId}\\s+3\\s+submitted\\s+-\\s+Urgent thing\\s+u/\\*\\*$`, 'm'));
    const more = /^More: (muster intents cli-links --limit 1 --cursor \S+)$/m.exec(table)?.[1];
    expect(more).toBeDefined();
    const second = json(await muster([...more!.split(' ').slice(1), '--json']));
    expect(second.items.map((i: { id: string }) => i.id)).toEqual([id]);

    const claimed = said(await muster(['claim', id, '--lease', '60'], worker.token));
    expect(claimed.trim()).toMatch(
      new RegExp(`^claimed intent ${id} until \\S+Z; heartbeat before then \\(muster heartbeat ${id}\\)$`),
    );
    const beat = json(await muster(['heartbeat', id, '--lease', '120', '--json'], worker.token));
    expect(beat.status.state).toBe('TASK_STATE_WORKING');
    expect(beat.metadata.muster.worker).toBe('cli-worker');
    expect(Date.parse(beat.metadata.muster.leaseUntil) - Date.now()).toBeGreaterThan(100_000);
    expect(said(await muster(['progress', id, 'Limiter', 'written;', 'tests', 'next.'], worker.token))).toMatch(
      new RegExp(`^progress noted on intent ${id} \\(working\\)`),
    );
    expect(said(await muster(['intents', 'cli-links', '--state', 'working']))).toMatch(
      new RegExp(`^${id}\\s+2\\s+working\\s+cli-worker\\s+Add rate limiting`, 'm'),
    );

    const landed = said(
      await muster(
        [
          'land',
          id,
          '--summary',
          'Rate limited /api/links at 60 a minute.',
          '--commit',
          'abc123',
          '--file',
          'src/links/limit.ts:the limiter',
          '--file',
          'test/links.test.ts',
        ],
        worker.token,
      ),
    );
    expect(landed).toBe(
      `landed intent ${id} (completed)\ncli-worker landed intent ${id} in commit abc123, writing 2 files; the Landing artifact says what changed.\n`,
    );
    const task = (await rest(hub, 'GET', `api/tasks/${id}`)).body;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.history.map((m: { parts: { text?: string }[] }) => m.parts[0]?.text)).toContain(
      'Limiter written; tests next.',
    );
    const landing = task.artifacts.find((a: { name: string }) => a.name === 'Landing');
    expect(landing.parts[0].text).toBe('Rate limited /api/links at 60 a minute.');
    expect(landing.parts[1].data).toMatchObject({
      commit: 'abc123',
      files: [{ path: 'src/links/limit.ts', why: 'the limiter' }, { path: 'test/links.test.ts' }],
      worker: 'cli-worker',
    });
    expect(json(await muster(['intents', 'cli-links', '--state', 'completed', '--json'])).items[0]).toMatchObject({
      id,
      state: 'TASK_STATE_COMPLETED',
      worker: 'cli-worker',
    });
  });

  it('declare --wait holds the answer until the intent lands, and answers it landed', async () => {
    const waiting = muster(
      ['declare', 'cli-links', 'Waited-for work', '--footprint', 'wait/**', '--wait'],
      owner.token,
    );
    const intent = await eventually(
      'the declaration to arrive',
      async () =>
        (await rest(hub, 'GET', 'api/spaces/cli-links/intents?state=claimable&limit=50')).body.data.find(
          (i: { title: string }) => i.title === 'Waited-for work',
        ),
      15_000,
      200,
    );
    expect((await rest(hub, 'POST', `api/tasks/${intent.id}/claim`, { token: worker.token, body: {} })).status).toBe(
      200,
    );
    expect(
      (await rest(hub, 'POST', `api/tasks/${intent.id}/land`, { token: worker.token, body: { summary: 'done' } }))
        .status,
    ).toBe(200);
    expect(said(await waiting)).toBe(
      `declared intent ${intent.id} in space cli-links at priority 1 (completed)\ncli-worker landed intent ${intent.id}, writing 0 files; the Landing artifact says what changed.\n`,
    );
  });

  it("a claim by another worker exits 1 with the hub's 409 in words; ask, release and fail", async () => {
    const intent = json(
      await muster(
        ['declare', 'cli-links', 'Cache link previews', '--footprint', 'src/previews/**', '--json'],
        orch.token,
      ),
    );
    expect(json(await muster(['claim', intent.id, '--json'], worker.token)).metadata.muster.worker).toBe('cli-worker');
    const taken = await muster(['claim', intent.id], other.token);
    expect(taken.code).toBe(1);
    expect(taken.stdout).toBe('');
    expect(taken.stderr).toMatch(
      new RegExp(
        `^muster: Intent ${intent.id} is held by cli-worker until \\S+Z\n  hint: Claim another intent from muster intents <space>\n$`,
      ),
    );
    const takenJson = await muster(['claim', intent.id, '--json'], other.token);
    expect(takenJson.code).toBe(1);
    expect(JSON.parse(takenJson.stdout)).toEqual({
      error: {
        code: 'LEASE_HELD',
        status: 409,
        message: expect.stringContaining('is held by cli-worker'),
        hint: 'Claim another intent from muster intents <space>',
      },
    });
    const notHeld = await muster(['progress', intent.id, 'me too'], other.token);
    expect(notHeld.code).toBe(1);
    expect(notHeld.stderr).toMatch(/^muster: Intent \S+ is held by cli-worker until/);

    expect(said(await muster(['ask', intent.id, 'Which', 'previews?'], worker.token))).toMatch(
      new RegExp(`^asked the declarer about intent ${intent.id} \\(input-required\\)`),
    );
    const released = said(await muster(['release', intent.id], worker.token));
    expect(released).toBe(
      `released intent ${intent.id} (submitted)\ncli-worker released intent ${intent.id}; it is open again for any worker to claim.\n`,
    );
    await muster(['claim', intent.id], other.token);
    const failed = said(await muster(['fail', intent.id, '--reason', 'the previews service is gone'], other.token));
    expect(failed).toBe(
      `failed intent ${intent.id} (failed)\ncli-other failed intent ${intent.id}: the previews service is gone\n`,
    );
    const late = await muster(['heartbeat', intent.id, '--json'], other.token);
    expect(late.code).toBe(1);
    expect(JSON.parse(late.stdout).error).toMatchObject({ code: 'LEASE_NOT_HELD', status: 409 });
  });

  it('usage errors exit 2 before sending: --priority, --lease, --state, --claim, --role, a missing --footprint', async () => {
    const before = (await rpc(`${hub.url}spaces/cli-links/`, 'ListTasks', {})).body.result.totalSize;
    const priority = await muster(
      ['declare', 'cli-links', 'Too urgent', '--footprint', 'x/**', '--priority', '11'],
      orch.token,
    );
    expect(priority.code).toBe(2);
    expect(priority.stderr).toContain(
      "muster: --priority '11': must be a whole number from 1 to 10\n  hint: See muster declare --help\n",
    );
    const priorityJson = await muster(
      ['declare', 'cli-links', 'Too urgent', '--footprint', 'x/**', '--priority', 'high', '--json'],
      orch.token,
    );
    expect(priorityJson.code).toBe(2);
    expect(priorityJson.stderr).toBe('');
    expect(JSON.parse(priorityJson.stdout)).toEqual({
      error: {
        code: 'USAGE',
        message: "--priority 'high': must be a whole number from 1 to 10",
        hint: 'See muster declare --help',
      },
    });
    const footprint = await muster(['declare', 'cli-links', 'No footprint', '--json'], orch.token);
    expect(footprint.code).toBe(2);
    expect(JSON.parse(footprint.stdout).error.message).toContain("required option '--footprint <glob>' not specified");
    const twoLines = await muster(['declare', 'cli-links', 'Two\nlines', '--footprint', 'x/**'], orch.token);
    expect(twoLines.code).toBe(2);
    expect(twoLines.stderr).toBe('muster: <title> must be one line\n  hint: Put the detail in --why\n');
    expect((await rpc(`${hub.url}spaces/cli-links/`, 'ListTasks', {})).body.result.totalSize).toBe(before);

    const [lease, state, claim, role, file, nothing] = await Promise.all([
      muster(['claim', 'some-id', '--lease', '0'], worker.token),
      muster(['intents', 'cli-links', '--state', 'claimed']),
      muster(['space', 'create', 'cli-bad', '--claim', 'anyone'], owner.token),
      muster(['space', 'member', 'add', 'cli-links', 'someone'], owner.token),
      muster(['land', 'some-id', '--summary', 'x', '--file', ':why'], worker.token),
      muster(['space', 'set', 'cli-links'], owner.token),
    ]);
    for (const r of [lease, state, claim, role, file, nothing]) expect(r.code, r.stderr).toBe(2);
    expect(lease.stderr).toContain('must be a whole number from 1 to 3600');
    expect(state.stderr).toContain('must be claimable, open, all, or one of submitted, working');
    expect(claim.stderr).toContain('Allowed choices are open, members');
    expect(role.stderr).toContain("required option '--role <role>' not specified");
    expect(file.stderr).toContain('must be PATH or PATH:WHY');
    expect(nothing.stderr).toBe(
      'muster: space set needs something to change\n  hint: Pass --description, --no-description, --claim or --orchestrator-priority\n',
    );
    expect(json(await muster(['space', 'show', 'cli-links', '--json'])).orchestratorPriority).toBe(3);
  });

  it('--json refusals are the one error document: no token, not allowed, no such space, a taken name', async () => {
    const [anonymous, asWorker, nowhere, taken, unknown] = await Promise.all([
      muster(['declare', 'cli-links', 'Do it', '--footprint', 'a', '--json']),
      muster(['declare', 'cli-links', 'Do it', '--footprint', 'a', '--json'], worker.token),
      muster(['intents', 'no-such-space', '--json']),
      muster(['space', 'create', 'cli-links', '--json'], other.token),
      muster(['claim', 'no-such-intent', '--json'], worker.token),
    ]);
    const errorOf = (r: Run, code: number) => {
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toBe('');
      const doc = JSON.parse(r.stdout);
      expect(Object.keys(doc)).toEqual(['error']);
      for (const key of Object.keys(doc.error)) expect(['code', 'status', 'message', 'hint', 'fields']).toContain(key);
      return doc.error;
    };
    expect(errorOf(anonymous, 1)).toMatchObject({
      code: 'UNAUTHENTICATED',
      status: 401,
      hint: 'Pass --token, set MUSTER_TOKEN, or run muster login',
    });
    expect(errorOf(asWorker, 1)).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      message: 'Only the owner and orchestrators declare intents in space cli-links',
    });
    expect(errorOf(asWorker, 1).hint).toContain(
      'The owner makes an agent an orchestrator with muster space member add cli-links <handle> --role orchestrator',
    );
    expect(errorOf(nowhere, 1)).toEqual({
      code: 'SPACE_NOT_FOUND',
      status: 404,
      message: 'There is no space named no-such-space',
      hint: 'List spaces with muster space list; make one with muster space create',
    });
    expect(errorOf(taken, 1)).toMatchObject({
      code: 'NAME_TAKEN',
      status: 409,
      fields: [{ field: '<name>', description: 'is taken' }],
    });
    expect(errorOf(unknown, 1)).toMatchObject({ code: 'TASK_NOT_FOUND', status: 404 });
  });

  it('withdraw: the declarer withdraws with a reason; the worker is refused after; a worker may not withdraw', async () => {
    const intent = json(
      await muster(['declare', 'cli-links', 'Withdrawn work', '--footprint', 'gone/**', '--json'], orch.token),
    );
    await muster(['claim', intent.id], worker.token);
    const byWorker = await muster(['withdraw', intent.id, '--space', 'cli-links'], worker.token);
    expect(byWorker.code).toBe(1);
    expect(byWorker.stderr).toMatch(
      /^muster: Only the space's owner, the intent's declarer or the admin may withdraw an intent\n/,
    );
    const withdrawn = said(
      await muster(['withdraw', intent.id, '--space', 'cli-links', '--reason', 'the plan changed'], orch.token),
    );
    expect(withdrawn).toBe(
      `withdrew intent ${intent.id} (canceled)\nIntent ${intent.id} was withdrawn: the plan changed. Its worker stops; declare it again to redo it.\n`,
    );
    const asJson = json(await muster(['withdraw', intent.id, '--space', 'cli-links', '--json'], owner.token));
    expect(asJson).toMatchObject({
      id: intent.id,
      status: { state: 'TASK_STATE_CANCELED' },
      metadata: { muster: { cancelReason: 'the plan changed' } },
    });
    const beat = await muster(['heartbeat', intent.id], worker.token);
    expect(beat.code).toBe(1);
    expect(beat.stderr).toContain(`Intent ${intent.id} was withdrawn; stop work on it`);
    const missingSpace = await muster(['withdraw', intent.id], orch.token);
    expect(missingSpace.code).toBe(2);
    expect(missingSpace.stderr).toContain("required option '--space <name>' not specified");
  });
});
