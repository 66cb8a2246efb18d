import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamResponse } from '@a2a-js/sdk';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient } from './helpers/sdk.js';
import { startWebhook } from './helpers/webhook.js';
import { approvalFor, contribution, dataParams, openData, reviewRequest, sendData, SOURCES } from './helpers/review.js';

let hub: TestHub;
let poster: Registered;
let c1: Registered;
let c2: Registered;
let c3: Registered;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1', MUSTER_ALLOW_PRIVATE_TARGETS: '1' });
  [poster, c1, c2, c3] = await registerAll(hub, 'poster', 'c-one', 'c-two', 'c-three');
});
afterAll(() => hub.destroy());

/** Polls GetTask (no token: review tasks are public) until the task leaves WORKING. */
async function evaluated(id: string, ms = 10_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const { body } = await rpc(hub.url, 'GetTask', { id });
    if (body.result.status.state !== 'TASK_STATE_WORKING') return body.result;
    if (Date.now() > until) throw new Error(`task ${id} was not evaluated in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const evaluationOf = (task: any) => task.artifacts.find((a: any) => a.name === 'Evaluation').parts[1].data;

describe('review tasks with the official SDK client', () => {
  it('one poster, three contributors, a subscriber and a push config: the evaluation arrives once, within 2 s of the deadline', async () => {
    const asPoster = await sdkClient(hub.url, poster.token);
    const request = reviewRequest(3_000);
    const posted = await sendData(asPoster, openData(request, approvalFor(request)));
    expect(posted.status.state).toBe('TASK_STATE_WORKING');
    expect(posted.id).toBe(posted.contextId);
    expect(posted.metadata.muster).toMatchObject({
      kind: 'review',
      from: 'poster',
      review: { request, digest: approvalFor(request).public_input_digest },
    });

    const webhook = await startWebhook();
    const push = await rpc(
      hub.url,
      'CreateTaskPushNotificationConfig',
      { taskId: posted.id, url: webhook.url, token: 'poster-hook' },
      { token: poster.token },
    );
    expect(push.body.result.url).toBe(webhook.url);

    // An anonymous subscriber follows the public task from before the first contribution to its end.
    const reader = await sdkClient(hub.url);
    const seen: any[] = [];
    const following = (async () => {
      for await (const event of reader.resubscribeTask({ tenant: '', id: posted.id }))
        seen.push(StreamResponse.toJSON(event));
    })();

    const verdicts: Record<string, string> = {};
    for (const [agent, verdict] of [
      [c1, 'source_supported'],
      [c2, 'source_supported'],
      [c3, 'source_supported'],
    ] as const) {
      const answer = await sendData(await sdkClient(hub.url, agent.token), contribution(verdict), posted.id);
      expect(answer.status.state).toBe('TASK_STATE_WORKING');
      expect(answer.metadata.muster.receipt.contribution).toMatchObject({ verdict, sealed_until_deadline: true });
      verdicts[answer.metadata.muster.receipt.contribution.id] = verdict;
    }

    const done = await evaluated(posted.id);
    const lateBy = Date.parse(done.status.timestamp) - Date.parse(request.deadline);
    expect(lateBy).toBeGreaterThanOrEqual(0);
    expect(lateBy).toBeLessThan(2_000);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.metadata.muster.review.outcome).toBe('resolved');
    const evaluation = evaluationOf(done);
    expect(evaluation).toMatchObject({
      outcome: 'resolved',
      verdict: 'source_supported',
      contribution_count: 3,
      counts: { source_supported: 3, source_contradicted: 0, source_unclear: 0 },
    });
    // The contributions are public now, under their receipt ids, with no agent named anywhere.
    expect(Object.fromEntries(evaluation.contributions.map((c: any) => [c.id, c.verdict]))).toEqual(verdicts);
    expect(JSON.stringify(done.artifacts)).not.toMatch(/c-one|c-two|c-three/);
    expect(done.artifacts).toHaveLength(1);

    await following; // the stream ends with the terminal status
    expect(seen.map((e) => Object.keys(e)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    expect(seen[0].task.status.state).toBe('TASK_STATE_WORKING');
    expect(seen[1].artifactUpdate.artifact.name).toBe('Evaluation');
    expect(seen[2].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');

    const pushed = await webhook.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(webhook.received).toHaveLength(2); // the artifact and the status; nothing for the sealed contributions
    expect(pushed.map((r) => Object.keys(JSON.parse(r.body))[0])).toEqual(['artifactUpdate', 'statusUpdate']);
    await webhook.close();
  });

  it('differing verdicts are contested; fewer than min_independent is unresolved (FAILED)', async () => {
    const [p2, a, b] = await registerAll(hub, 'poster-two', 'agent-a', 'agent-b');
    const asP2 = await sdkClient(hub.url, p2.token);
    const contested = reviewRequest(1_500, { question: 'Is the http module documented as stable?' });
    const lonely = reviewRequest(1_500, { question: 'Does the page describe keep-alive?', min_independent: 3 });
    const [t1, t2] = [await sendData(asP2, openData(contested)), await sendData(asP2, openData(lonely))];
    await sendData(await sdkClient(hub.url, a.token), contribution('source_supported'), t1.id);
    await sendData(await sdkClient(hub.url, b.token), contribution('source_contradicted'), t1.id);
    await sendData(await sdkClient(hub.url, a.token), contribution('source_unclear'), t2.id);

    const [d1, d2] = await Promise.all([evaluated(t1.id), evaluated(t2.id)]);
    expect(d1.status.state).toBe('TASK_STATE_COMPLETED');
    expect(evaluationOf(d1)).toMatchObject({
      outcome: 'contested',
      contribution_count: 2,
      counts: { source_supported: 1, source_contradicted: 1 },
    });
    expect(evaluationOf(d1).verdict).toBeUndefined();
    expect(d2.status.state).toBe('TASK_STATE_FAILED');
    expect(evaluationOf(d2)).toMatchObject({ outcome: 'unresolved', contribution_count: 1, min_independent: 3 });
    expect(d2.status.message.parts[0].text).toMatch(/^Unresolved/);
  });

  it('answers a post at once with the WORKING task, even when asked to block', async () => {
    const [p] = await registerAll(hub, 'blocking-poster');
    const started = Date.now();
    const { body } = await rpc(
      hub.url,
      'SendMessage',
      {
        ...dataParams(openData(reviewRequest(600_000, { question: 'Answered at once?' }))),
        configuration: { returnImmediately: false },
      },
      { token: p.token },
    );
    expect(body.result.task.status.state).toBe('TASK_STATE_WORKING');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('ListTasks at the hub base lists review tasks to anyone, with the core filters', async () => {
    const anyone = await rpc(hub.url, 'ListTasks', { pageSize: 100 });
    expect(anyone.status).toBe(200);
    const reviews = anyone.body.result.tasks.filter((t: any) => t.metadata.muster.kind === 'review');
    expect(reviews.length).toBeGreaterThanOrEqual(3);
    const completed = await rpc(hub.url, 'ListTasks', { status: 'TASK_STATE_COMPLETED' });
    expect(completed.body.result.tasks.every((t: any) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    const failed = await rpc(hub.url, 'ListTasks', { status: 'failed', pageSize: 1 }); // the 0.3 spelling
    expect(failed.body.result.tasks).toHaveLength(1);
    expect(failed.body.result.nextPageToken).toBe('');
    const one = reviews[0];
    const byContext = await rpc(hub.url, 'ListTasks', { contextId: one.contextId });
    expect(byContext.body.result.tasks.map((t: any) => t.id)).toEqual([one.id]);
  });
});

describe('sealing: until the deadline, nobody but the contributor can tell a contribution was made', () => {
  it('reads the same through every door before and after a contribution; the contributor reads its receipt', async () => {
    const [p, sealer, outsider] = await registerAll(hub, 'seal-poster', 'sealer', 'outsider');
    const request = reviewRequest(600_000, { question: 'Is the ListTasks page token opaque?' });
    const posted = await sendData(await sdkClient(hub.url, p.token), openData(request));
    const id = posted.id;
    const webhook = await startWebhook();
    await rpc(hub.url, 'CreateTaskPushNotificationConfig', { taskId: id, url: webhook.url }, { token: p.token });

    // Everything a non-contributor can read of the task, through every door there is.
    const snapshot = async () => {
      const reads = await Promise.all([
        rpc(hub.url, 'GetTask', { id }),
        rpc(hub.url, 'GetTask', { id }, { token: p.token }),
        rpc(hub.url, 'GetTask', { id }, { token: outsider.token }),
        rpc(hub.url, 'tasks/get', { id }),
        rpc(hub.url, 'ListTasks', { contextId: id, includeArtifacts: true }),
        rpc(hub.url, 'ListTasks', { status: 'TASK_STATE_WORKING', pageSize: 100 }, { token: outsider.token }),
        rpc(`${hub.url}agents/seal-poster/`, 'GetTask', { id }, { token: p.token }),
        rest(hub, 'GET', `api/tasks/${id}`),
        rest(hub, 'GET', `api/tasks/${id}`, { token: p.token }),
        rest(hub, 'GET', 'api/sent', { token: p.token }),
        rest(hub, 'GET', `api/tasks/${id}/deliveries`, { token: p.token }),
      ]);
      return JSON.stringify(reads.map((r) => [r.status, r.body]));
    };
    // A stream opened before the contribution: its next event must be the evaluation, never the contribution.
    const stream = await fetch(hub.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } }),
    });
    const reader = stream.body!.getReader();
    const first = Buffer.from((await reader.read()).value!).toString();
    expect(first).toContain('"task"');

    const before = await snapshot();
    const answer = await rpc(hub.url, 'SendMessage', dataParams(contribution('source_contradicted'), id), {
      token: sealer.token,
    });
    expect(answer.body.result.task.metadata.muster.receipt.contribution.verdict).toBe('source_contradicted');
    const after = await snapshot();
    expect(after).toBe(before);
    expect(after).not.toContain('source_contradicted');

    // The contributor, and only the contributor, reads its receipt back (A2A and REST).
    const own = await rpc(hub.url, 'GetTask', { id }, { token: sealer.token });
    expect(own.body.result.metadata.muster.receipt.contribution.id).toBe(
      answer.body.result.task.metadata.muster.receipt.contribution.id,
    );
    expect(
      (await rest(hub, 'GET', `api/tasks/${id}`, { token: sealer.token })).body.metadata.muster.receipt.contribution
        .verdict,
    ).toBe('source_contradicted');
    const { receipt: _receipt, ...mustered } = own.body.result.metadata.muster;
    const others = JSON.parse(before)[2][1].result;
    expect({ ...own.body.result, metadata: { ...own.body.result.metadata, muster: mustered } }).toEqual(others);

    // Nothing went out: no push, no stream event (read for a moment).
    await new Promise((r) => setTimeout(r, 500));
    expect(webhook.received).toHaveLength(0);
    const next = await Promise.race([
      reader.read().then(() => 'event'),
      new Promise((r) => setTimeout(() => r('quiet'), 500)),
    ]);
    expect(next).toBe('quiet');
    await reader.cancel();
    await webhook.close();
  });
});

describe('retries and the 0.3 door', () => {
  it('the same contribution resent with its messageId answers the receipt again; 0.3 message/send contributes too', async () => {
    const [p, x, y] = await registerAll(hub, 'retry-poster', 'retry-x', 'retry-y');
    const id = (
      await sendData(await sdkClient(hub.url, p.token), openData(reviewRequest(600_000, { question: 'Retried?' })))
    ).id;
    const params = dataParams(contribution(), id);
    const first = await rpc(hub.url, 'SendMessage', params, { token: x.token });
    const again = await rpc(hub.url, 'SendMessage', params, { token: x.token });
    expect(again.body.result.task.metadata.muster.receipt).toEqual(first.body.result.task.metadata.muster.receipt);
    const legacy = await rpc(
      hub.url,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: 'legacy-1',
          role: 'user',
          taskId: id,
          parts: [{ kind: 'data', data: contribution('source_unclear') }],
        },
      },
      { token: y.token },
    );
    expect(legacy.body.result.kind).toBe('task');
    expect(legacy.body.result.metadata.muster.receipt.contribution.verdict).toBe('source_unclear');
  });
});

describe('open review posts at the hub base only', () => {
  it("the sources in a contribution must be the task's own", async () => {
    const [p, c] = await registerAll(hub, 'src-poster', 'src-contrib');
    const posted = await sendData(
      await sdkClient(hub.url, p.token),
      openData(reviewRequest(600_000, { question: 'Which sources apply here?' })),
    );
    const bad = await rpc(
      hub.url,
      'SendMessage',
      dataParams(contribution('source_supported', { source_urls: ['https://github.com/other/repo'] }), posted.id),
      { token: c.token },
    );
    expect(bad.body.error.code).toBe(-32602);
    expect(bad.body.error.data[1].fieldViolations[0].field).toBe('params.message.parts[0].data.source_urls[0]');
    expect(SOURCES).not.toContain('https://github.com/other/repo');
  });
});
