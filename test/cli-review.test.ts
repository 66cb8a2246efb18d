import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, registerAll, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { runMuster } from './helpers/cli.js';
import { contribution, dataParams, digestOf, reviewRequest } from './helpers/review.js';

let hub: TestHub;
let poster: Registered, helper: Registered;
const dir = mkdtempSync(join(tmpdir(), 'muster-cli-review-'));
const file = (name: string, value: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
};
const muster = (args: string[], token?: string) =>
  runMuster(hub.url, args, token, { MUSTER_REVIEW_MIN_DEADLINE_S: '1' });

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1' });
  [poster, helper] = await registerAll(hub, 'cli-poster', 'cli-helper');
});
afterAll(() => hub.destroy());

describe('muster review, contribute, answer and call', { timeout: 120_000 }, () => {
  it('digest and preview run locally: the same digest, the rules checked, nothing sent', async () => {
    const request = reviewRequest(600_000);
    const path = file('request.json', request);
    const digest = await muster(['review', 'digest', path]);
    expect(digest.code).toBe(0);
    expect(digest.stdout.trim()).toBe(digestOf(request));
    const wrapped = await muster(['review', 'digest', file('post.json', { request, approval: {} }), '--json']);
    expect(JSON.parse(wrapped.stdout)).toEqual({ digest: digestOf(request) });

    const preview = await muster(['review', 'preview', path]);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('nothing was sent');
    expect(preview.stdout).toContain(request.question);
    expect(preview.stdout).toContain(`--approved ${digestOf(request)}`);
    const bad = await muster([
      'review',
      'preview',
      file('bad.json', { ...request, sources: ['https://example.com/x'] }),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('sources[0]');
    expect(bad.stderr).toContain('hint:');
    const badJson = await muster([
      'review',
      'preview',
      file('bad.json', { ...request, sources: ['https://example.com/x'] }),
      '--json',
    ]);
    expect(badJson.code).toBe(1);
    expect(JSON.parse(badJson.stdout).error).toMatchObject({ code: 'INVALID_PARAMS', status: 400 });
    // The preview and digest sent nothing: the hub has no task.
    expect((await rpc(hub.url, 'ListTasks', {})).body.result.totalSize).toBe(0);
  });

  it('post needs the approved digest; contribute shows the sealed receipt; answer posts to a call', async () => {
    const request = reviewRequest(600_000, { title: 'CLI review' });
    const path = file('cli-request.json', request);
    const wrong = await muster(
      ['review', 'post', path, '--approved', digestOf({ ...request, title: 'other' })],
      poster.token,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('not the one that was approved');
    const posted = await muster(['review', 'post', path, '--approved', digestOf(request), '--json'], poster.token);
    expect(posted.code).toBe(0);
    const id = JSON.parse(posted.stdout).id;

    const sent = await muster(
      ['contribute', id, file('contribution.json', contribution('source_unclear'))],
      helper.token,
    );
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/sealed until the deadline; your contribution id: [0-9a-f-]{36}/);
    const twice = await muster(
      ['contribute', id, file('contribution.json', contribution('source_unclear'))],
      helper.token,
    );
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already has its one entry');
  });

  it('call open and close need the admin token; get shows the question and each answer', async () => {
    const refused = await muster(['call', 'open', '--title', 'CLI call', 'Which topics should the next paper cover?']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'muster: This command needs the admin token\n  hint: Pass --admin-token or set MUSTER_ADMIN_TOKEN (the hub prints where its admin token file is at start)\n',
    );
    const opened = await muster([
      'call',
      'open',
      '--title',
      'CLI call',
      'Which topics should the next paper cover?',
      '--admin-token',
      ADMIN_TOKEN,
    ]);
    expect(opened.code).toBe(0);
    const callId = /^task\s+(\S+)$/m.exec(opened.stdout)?.[1] ?? '';
    expect(opened.stdout).toMatch(/^state\s+working$/m);
    expect(opened.stdout).toContain(`muster answer ${callId} "…"`);

    const answered = await muster(
      ['answer', callId, '--stance', 'neutral', 'A considered answer that is long enough.'],
      helper.token,
    );
    expect(answered.code).toBe(0);
    // The trimmed history no longer holds the opening message: the answer must still show as one.
    const trimmed = await muster(['get', callId, '--history', '1']);
    expect(trimmed.stdout).toContain('Answers (1):\n  - neutral: A considered answer that is long enough.');
    const read = (await rpc(hub.url, 'GetTask', { id: callId })).body.result;
    expect(read.history.at(-1).parts[0].data).toEqual({
      stance: 'neutral',
      body: 'A considered answer that is long enough.',
    });

    const closed = await runMuster(hub.url, ['call', 'close', callId], undefined, { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(closed.code).toBe(0);
    expect(closed.stdout).toMatch(/^state\s+completed$/m);
    const shown = await muster(['get', callId]);
    expect(shown.stdout).toContain(
      'Call: CLI call\n  question: Which topics should the next paper cover?\n\nAnswers (1):\n  - neutral: A considered answer that is long enough.',
    );
    expect(shown.stdout).not.toContain('"skill"'); // the opening data part is shown as the question, not as JSON
  });

  it('get shows a review request, then after the deadline its evaluation: outcome, counts and contributions', async () => {
    const [third] = await registerAll(hub, 'cli-third');
    const request = reviewRequest(8_000, { title: 'Evaluated in the CLI' });
    const posted = await muster(
      ['review', 'post', file('soon.json', request), '--approved', digestOf(request), '--json'],
      poster.token,
    );
    const id = JSON.parse(posted.stdout).id;
    const before = await muster(['get', id]);
    expect(before.stdout).toContain(
      `Review: Evaluated in the CLI\n  question: ${request.question}\n  sources:\n    - ${request.sources[0]}`,
    );
    expect(before.stdout).toContain('Evaluation: not yet (it comes at the deadline)');
    for (const agent of [helper, third!])
      await rpc(hub.url, 'SendMessage', dataParams(contribution('source_supported'), id), { token: agent.token });
    for (let i = 0; i < 150; i++) {
      if ((await rpc(hub.url, 'GetTask', { id })).body.result.status.state === 'TASK_STATE_COMPLETED') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = await muster(['get', id]);
    expect(after.stdout).toMatch(/^state\s+completed$/m);
    expect(after.stdout).toContain(
      'Evaluation: resolved (source_supported)\n  Resolved: all 2 contributions agree (2 source_supported).\n  counts: source_supported 2, source_contradicted 0, source_unclear 0',
    );
    expect(after.stdout).toContain(
      `  contributions (2):\n    - source_supported: ${contribution().summary} (limitations: Did not check older drafts)\n    - source_supported:`,
    );
    expect(after.stdout).not.toContain('Artifacts'); // the evaluation artifact is the section above
  });
});
