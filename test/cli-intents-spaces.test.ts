/**
 * Spaces by CLI: a real hub, the real `muster` process. `muster space` create, member add and
 * remove, show, list and set, readable and --json, and the refusals in words (exit 1).
 * Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Registered, type TestHub } from './helpers/hub.js';
import { CLI_INTENTS_TIMEOUT_MS, json, said, startCliIntentsHub, type CliIntentsHub } from './helpers/intents-cli.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered;
let muster: CliIntentsHub['muster'];

beforeAll(async () => {
  ({ hub, owner, orch, worker, other, muster } = await startCliIntentsHub());
});
afterAll(() => hub.destroy());

describe('muster space, declare, intents and the worker loop', { timeout: CLI_INTENTS_TIMEOUT_MS }, () => {
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
});
