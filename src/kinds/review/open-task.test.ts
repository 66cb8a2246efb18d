import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isHubError } from '../../errors/hub-error.js';
import { digestOf, SOURCES } from '../../../test/helpers/review.js';
import { inProcessHub } from '../../../test/helpers/in-process.js';

const as = (handle: string) => ({ caller: { kind: 'agent' as const, handle }, door: { kind: 'hub' as const } });

const form = (now: number, over: Record<string, unknown> = {}) => ({
  schema: 'cairn.open_task/0.1',
  operation_id: randomUUID(),
  task_type: 'source_review',
  goal: 'Does the specification define ListTasks?',
  source_urls: SOURCES,
  acceptance_criteria: ['The method is named'],
  deadline_at: new Date(now + 3_600_000).toISOString(),
  min_independent: 2,
  max_contributors: 3,
  budget: { currency: 'USD', max_total_minor: 0 },
  reward_points: 0,
  min_share_percent: 10,
  publication_plan: 'a2a_thread',
  ...over,
});

const data = (request: unknown, scope = 'this_open_task') => ({
  skill: 'review.open',
  args: { request, approval: { public_input_digest: digestOf(request), public_output: true, scope } },
});

const message = (part: unknown, taskId?: string) => ({
  message: {
    messageId: randomUUID(),
    role: 'ROLE_USER' as const,
    parts: [{ data: part }],
    ...(taskId ? { taskId } : {}),
  },
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => (isHubError(e) ? { code: e.code, fields: e.fields.map((f) => f.field) } : e),
  );

describe("the review kind reads Cairn's forms natively", () => {
  it('posts an open-task request: the native request from it, the form kept, its digest approved as this_open_task', async () => {
    const { hub, clock, close } = await inProcessHub();
    const request = form(clock.now);
    const task = await hub.tasks.send(as('poster'), message(data(request)));
    const review = (task.metadata!['muster'] as any).review;
    expect(review.openTask).toEqual(request);
    expect(review.request).toMatchObject({ question: request.goal, sources: SOURCES, deadline: request.deadline_at });
    expect(review.digest).toBe(digestOf(request));

    const args = 'message.parts[0].data.args';
    expect(await refusal(hub.tasks.send(as('poster'), message(data(form(clock.now), 'this_task'))))).toEqual({
      code: 'INVALID_PARAMS',
      fields: [`${args}.approval.scope`],
    });
    const far = form(clock.now, { deadline_at: new Date(clock.now + 30 * 86_400_000).toISOString() });
    expect(await refusal(hub.tasks.send(as('other'), message(data(far))))).toEqual({
      code: 'INVALID_PARAMS',
      fields: [`${args}.request.deadline_at`],
    });
    const bounty = form(clock.now, { reward_points: 5 });
    expect(await refusal(hub.tasks.send(as('other'), message(data(bounty))))).toEqual({
      code: 'INVALID_PARAMS',
      fields: [`${args}.request.reward_points`],
    });
    await close();
  });

  it('takes a cairn.task.contribution/0.1 report: its conditions and limitations are one text each', async () => {
    const { hub, clock, store, close } = await inProcessHub();
    const task = await hub.tasks.send(as('poster'), message(data(form(clock.now))));
    const report = {
      schema: 'cairn.task.contribution/0.1',
      verdict: 'source_supported',
      summary: 'Named in the specification.',
      conditions: 'Read the 1.0 text',
      attempts: ['Searched for ListTasks'],
      limitations: 'Older drafts not read',
      source_urls: [SOURCES[0]],
      public_output_approved: true,
    };
    expect(
      await refusal(hub.tasks.send(as('c1'), message({ ...report, public_output_approved: false }, task.id))),
    ).toEqual({
      code: 'INVALID_PARAMS',
      fields: ['message.parts[0].data.public_output_approved'],
    });
    const leaky = { ...report, limitations: 'See /home/alice/notes.txt' };
    expect(await refusal(hub.tasks.send(as('c1'), message(leaky, task.id)))).toMatchObject({
      code: 'PRIVATE_CONTENT',
      fields: ['message.parts[0].data.limitations'],
    });
    await hub.tasks.send(as('c1'), message(report, task.id));
    expect((await store.entryOf(task.id, 'c1'))?.body).toMatchObject({
      conditions: ['Read the 1.0 text'],
      limitations: ['Older drafts not read'],
      attempts: ['Searched for ListTasks'],
    });
    await close();
  });
});
