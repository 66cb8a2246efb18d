/**
 * Spaces and work intents by CLI, what goes wrong: usage errors exit 2 before anything is sent,
 * and a refusal under --json is the one error document. A real hub, the real `muster` process,
 * the space cli-links made before. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Run } from './helpers/cli.js';
import { rpc, type Registered, type TestHub } from './helpers/hub.js';
import {
  CLI_INTENTS_TIMEOUT_MS,
  json,
  startCliIntentsHubWithLinks,
  type CliIntentsHub,
} from './helpers/intents-cli.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered, other: Registered;
let muster: CliIntentsHub['muster'];

beforeAll(async () => {
  ({ hub, owner, orch, worker, other, muster } = await startCliIntentsHubWithLinks());
});
afterAll(() => hub.destroy());

describe('muster space, declare, intents and the worker loop', { timeout: CLI_INTENTS_TIMEOUT_MS }, () => {
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
});
