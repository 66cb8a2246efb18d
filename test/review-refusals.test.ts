import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  awayFromWindowEdge,
  registerAll,
  rest,
  rpc,
  startTestHub,
  type Registered,
  type TestHub,
} from './helpers/hub.js';
import { approvalFor, contribution, dataParams, digestOf, openData, reviewRequest } from './helpers/review.js';

let hub: TestHub;
beforeAll(async () => {
  await awayFromWindowEdge(86_400_000, 15_000); // the daily quotas under test must not reset mid-file
  hub = await startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1' });
});
afterAll(() => hub.destroy());

const post = (who: { token: string } | undefined, data: unknown) =>
  rpc(hub.url, 'SendMessage', dataParams(data), who ? { token: who.token } : {});
const contribute = (who: { token: string } | undefined, id: string, data: unknown) =>
  rpc(hub.url, 'SendMessage', dataParams(data, id), who ? { token: who.token } : {});
const reason = (body: any) => body.error.data[0].reason;
const fields = (body: any) => body.error.data[1]?.fieldViolations.map((f: any) => f.field);
/** What anyone reads of a task, for "nothing changed". */
const read = async (id: string) => JSON.stringify((await rpc(hub.url, 'GetTask', { id })).body);
const agents = <const H extends readonly string[]>(...handles: H) => registerAll(hub, ...handles);

describe('refused posts store nothing and use no quota', () => {
  it('refuses each bad post with a clear error; the two good posts after them still fit the daily quota', async () => {
    const [p] = await agents('refused-poster');
    const listed = async () => (await rpc(hub.url, 'ListTasks', {}, { token: p!.token })).body.result.totalSize;
    const before = await listed();
    const good = reviewRequest(60_000);
    const cases: [string, unknown, number, string, string?][] = [
      [
        'a changed request',
        openData({ ...good, title: 'Edited after approval' }, approvalFor(good)),
        -32602,
        'APPROVAL_MISMATCH',
        'params.message.parts[0].data.args.approval.public_input_digest',
      ],
      [
        'public_output false',
        openData(good, approvalFor(good, { public_output: false })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.approval.public_output',
      ],
      [
        'a deadline in the past',
        openData(reviewRequest(-5_000)),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.deadline',
      ],
      [
        'a deadline past 7 days',
        openData(reviewRequest(8 * 86_400_000)),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.deadline',
      ],
      [
        'a source with a query',
        openData(reviewRequest(60_000, { sources: ['https://github.com/a/b?tab=1'] })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.sources[0]',
      ],
      [
        'a source on another host',
        openData(reviewRequest(60_000, { sources: ['https://example.com/page'] })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.sources[0]',
      ],
      [
        'a plain http source',
        openData(reviewRequest(60_000, { sources: ['http://github.com/a/b'] })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.sources[0]',
      ],
      [
        'min_independent 6',
        openData(reviewRequest(60_000, { min_independent: 6, max_contributors: 10 })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.min_independent',
      ],
      [
        'max below min',
        openData(reviewRequest(60_000, { min_independent: 4, max_contributors: 3 })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.max_contributors',
      ],
      [
        'six criteria',
        openData(reviewRequest(60_000, { acceptance: ['a', 'b', 'c', 'd', 'e', 'f'] })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.acceptance',
      ],
      [
        'an unknown field',
        openData(reviewRequest(60_000, { budget: 5 })),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.request.budget',
      ],
      [
        'an e-mail in the question',
        openData(reviewRequest(60_000, { question: 'Ask jane.doe@corp-mail.com whether the page is right' })),
        -32602,
        'PRIVATE_CONTENT',
        'params.message.parts[0].data.args.request.question',
      ],
    ];
    for (const [what, data, code, why, field] of cases) {
      const { body } = await post(p, data);
      expect(body.error?.code, what).toBe(code);
      expect(reason(body), what).toBe(why);
      if (field) expect(fields(body), what).toContain(field);
      expect(body.error.data[0].metadata.hint, what).toBeTruthy();
    }
    expect(await listed()).toBe(before);
    // Nothing above used the quota of 2 posts a day.
    for (let i = 0; i < 2; i++)
      expect(
        (await post(p, openData(reviewRequest(60_000, { title: `good ${i}` })))).body.result.task.status.state,
      ).toBe('TASK_STATE_WORKING');
    const third = await post(p, openData(reviewRequest(60_000, { title: 'one too many' })));
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe(-32029);
    expect(third.body.error.data[0].metadata.quota).toBe('review.post');
  });

  it('needs an agent token: none is 401, the admin is 403', async () => {
    const request = reviewRequest(60_000);
    const anonymous = await post(undefined, openData(request));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe(-32010);
    const admin = await post({ token: ADMIN_TOKEN }, openData(request));
    expect(admin.body.error.code).toBe(-32011);
  });

  it('the digest is SHA-256 of the RFC 8785 form: key order and whitespace in the post do not matter', async () => {
    const [p] = await agents('order-poster');
    const request = reviewRequest(60_000);
    const reordered = Object.fromEntries(Object.entries(request).reverse());
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(request));
    const { body } = await post(
      p,
      openData(reordered, { public_input_digest: digestOf(request), public_output: true, scope: 'this_task' }),
    );
    expect(body.result.task.metadata.muster.review.digest).toBe(digestOf(request));
  });
});

describe('refused contributions never change the task', () => {
  let poster: Registered, a: Registered, b: Registered, c: Registered;
  let id: string;
  const deadlineMs = 4_000;

  beforeAll(async () => {
    [poster, a, b, c] = await agents('rc-poster', 'rc-a', 'rc-b', 'rc-c');
    id = (await post(poster, openData(reviewRequest(deadlineMs, { min_independent: 2, max_contributors: 2 })))).body
      .result.task.id;
  });

  it('refuses duplicates, the poster, the admin, bad payloads, private content, a full task and cancel, each leaving the task as it was', async () => {
    expect(
      (await contribute(a, id, contribution('source_supported'))).body.result.task.metadata.muster.receipt,
    ).toBeDefined();
    const receiptOfA = JSON.stringify((await rpc(hub.url, 'GetTask', { id }, { token: a.token })).body);
    const cases: [string, () => Promise<{ status: number; body: any }>, number, string, string?][] = [
      [
        'a second contribution',
        () => contribute(a, id, contribution('source_contradicted')),
        -32013,
        'ALREADY_CONTRIBUTED',
      ],
      ['the poster', () => contribute(poster, id, contribution()), -32011, 'FORBIDDEN'],
      ['the admin', () => contribute({ token: ADMIN_TOKEN }, id, contribution()), -32011, 'FORBIDDEN'],
      ['no token', () => contribute(undefined, id, contribution()), -32010, 'UNAUTHENTICATED'],
      [
        'an unknown verdict',
        () => contribute(b, id, contribution('maybe')),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.verdict',
      ],
      [
        'a text part',
        () =>
          rpc(
            hub.url,
            'SendMessage',
            { message: { messageId: 'txt-1', role: 'ROLE_USER', taskId: id, parts: [{ text: 'I agree' }] } },
            { token: b.token },
          ),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts',
      ],
      [
        'an e-mail and a key',
        () =>
          contribute(
            b,
            id,
            contribution('source_supported', {
              summary: 'Mail ops@acme-internal.net',
              limitations: ['key AKIAABCDEFGHIJKLMNOP'],
            }),
          ),
        -32602,
        'PRIVATE_CONTENT',
        'params.message.parts[0].data.summary',
      ],
      [
        'a local path',
        () => contribute(b, id, contribution('source_supported', { attempts: ['ran it from /home/bob/projects/a2a'] })),
        -32602,
        'PRIVATE_CONTENT',
        'params.message.parts[0].data.attempts[0]',
      ],
      [
        'a private URL',
        () => contribute(b, id, contribution('source_supported', { conditions: ['see http://10.0.0.7:8080/status'] })),
        -32602,
        'PRIVATE_CONTENT',
        'params.message.parts[0].data.conditions[0]',
      ],
      [
        'a bad verdict, sent as a skill call',
        () => contribute(b, id, { skill: 'review.contribute', args: contribution('maybe') }),
        -32602,
        'INVALID_PARAMS',
        'params.message.parts[0].data.args.verdict',
      ],
      ['cancel', () => rpc(hub.url, 'CancelTask', { id }, { token: poster.token }), -32002, 'TASK_NOT_CANCELABLE'],
    ];
    for (const [what, send, code, why, field] of cases) {
      const before = await read(id);
      const { body } = await send();
      expect(body.error?.code, what).toBe(code);
      expect(reason(body), what).toBe(why);
      if (field) expect(fields(body), what).toContain(field);
      expect(await read(id), what).toBe(before);
    }
    const screened = await contribute(
      b,
      id,
      contribution('source_supported', { summary: 'Mail ops@acme-internal.net' }),
    );
    expect(screened.body.error.data[1].fieldViolations[0].description).toMatch(/^email-address: /);
    expect(JSON.stringify(screened.body)).not.toContain('ops@acme-internal.net'); // the refusal does not echo the private value
    expect(JSON.stringify((await rpc(hub.url, 'GetTask', { id }, { token: a.token })).body)).toBe(receiptOfA);

    // The report may also come as a skill call, {"skill": "review.contribute", "args": report}.
    expect(
      (await contribute(b, id, { skill: 'review.contribute', args: contribution('source_supported') })).body.result,
    ).toBeDefined();
    const before = await read(id);
    const full = await contribute(c, id, contribution());
    expect(full.body.error.code).toBe(-32013);
    expect(reason(full.body)).toBe('TASK_FULL');
    expect(await read(id)).toBe(before);
  });

  it('after the deadline: only the accepted contributions count, a message is -32004 and cancel -32002', async () => {
    let task: any;
    for (let i = 0; i < 80; i++) {
      task = (await rpc(hub.url, 'GetTask', { id })).body.result;
      if (task.status.state !== 'TASK_STATE_WORKING') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const evaluation = task.artifacts[0].parts[1].data;
    expect(evaluation).toMatchObject({ outcome: 'resolved', contribution_count: 2, counts: { source_supported: 2 } });
    const before = await read(id);
    const late = await contribute(c, id, contribution());
    expect(late.body.error.code).toBe(-32004);
    expect((await rpc(hub.url, 'CancelTask', { id }, { token: poster.token })).body.error.code).toBe(-32002);
    expect(await read(id)).toBe(before);
  });
});

describe('contribution quotas', () => {
  it('3 contributions a day per agent; refused ones use none', async () => {
    const [p1, p2, x] = await agents('q-poster-1', 'q-poster-2', 'q-contrib');
    const ids: string[] = [];
    for (const p of [p1, p2, p1, p2])
      ids.push((await post(p, openData(reviewRequest(600_000, { title: `quota ${ids.length}` })))).body.result.task.id);
    expect((await contribute(x, ids[0]!, contribution('nonsense'))).body.error.code).toBe(-32602);
    expect(
      (
        await contribute(
          x,
          ids[0]!,
          contribution('source_supported', { summary: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789' }),
        )
      ).body.error.code,
    ).toBe(-32602);
    for (const id of ids.slice(0, 3)) expect((await contribute(x, id, contribution())).body.result.task.id).toBe(id);
    const before = await read(ids[3]!);
    const fourth = await contribute(x, ids[3]!, contribution());
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.data[0].metadata.quota).toBe('review.contribute');
    expect(await read(ids[3]!)).toBe(before);
    expect(
      (await rest(hub, 'GET', `api/tasks/${ids[3]}`, { token: x.token })).body.metadata.muster.receipt,
    ).toBeUndefined();
  });
});
