/**
 * Work intents by CLI: a real hub, the real `muster` process, the space cli-links made before.
 * A worker loop from declare to land, declare --wait, a claim refused in words (exit 1) with ask,
 * release and fail, and withdraw. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest, type Registered, type TestHub } from './helpers/hub.js';
import {
  CLI_INTENTS_TIMEOUT_MS,
  json,
  said,
  startCliIntentsHubWithLinks,
  type CliIntentsHub,
} from './helpers/intents-cli.js';
import { eventually } from './helpers/nodes.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered;
let muster: CliIntentsHub['muster'];

beforeAll(async () => {
  ({ hub, owner, orch, worker, other, muster } = await startCliIntentsHubWithLinks());
});
afterAll(() => hub.destroy());

describe('muster space, declare, intents and the worker loop', { timeout: CLI_INTENTS_TIMEOUT_MS }, () => {
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
