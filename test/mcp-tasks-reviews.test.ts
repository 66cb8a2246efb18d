/**
 * The review and call tools of the MCP door (issue 15), with the official MCP client over
 * Streamable HTTP (/mcp) and over stdio (a real `muster mcp`), on SQLite or PostgreSQL
 * (MUSTER_TEST_PG): a whole review flow with sealed contributions, a preview that sends nothing, an
 * open call answered; what the tools do is checked through A2A too, with the official SDK client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, type McpTransportName } from './helpers/mcp.js';
import {
  a2aTask,
  connectTaskAgents,
  expectRefusal,
  ok,
  startTaskToolsHub,
  type TaskToolConnections,
} from './helpers/mcp-tasks.js';
import { contribution, digestOf, reviewRequest, sendData, SOURCES } from './helpers/review.js';
import { sdkClient } from './helpers/sdk.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTaskToolsHub();
});
afterAll(() => hub.destroy());

describe.each<McpTransportName>(['http', 'stdio'])('the task tools over %s', (transport) => {
  let poster: Registered, one: Registered, two: Registered;
  let mcp: TaskToolConnections;
  beforeAll(async () => {
    ({ poster, one, two, mcp } = await connectTaskAgents(hub, transport));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(mcp ?? {}).map((c) => c?.close()));
  });

  it('a whole review flow: digest, post with the approved digest, two sealed contributions, evaluated, read; checked through A2A', async () => {
    const request = reviewRequest(6_000, { title: `Spec check over ${transport}` });
    const digest = ok(await callTool(mcp.poster.client, 'muster_review_digest', { request }));
    expect(digest.digest).toBe(digestOf(request)); // the test's own RFC 8785, not the hub's
    const posted = ok(
      await callTool(mcp.poster.client, 'muster_review_post', { request, approvedDigest: digest.digest }),
    );
    expect(posted.state).toBe('TASK_STATE_WORKING');
    const id = posted.task.id;
    expect((await a2aTask(hub, id)).metadata.muster).toMatchObject({
      kind: 'review',
      from: poster.handle,
      review: { request, digest: digest.digest },
    });
    expect(ok(await callTool(mcp.anonymous.client, 'muster_reviews')).items.map((r: any) => r.id)).toContain(id);

    const before = ok(await callTool(mcp.anonymous.client, 'muster_get_task', { id })).task;
    const first = ok(
      await callTool(mcp.one.client, 'muster_review_contribute', {
        id,
        contribution: contribution('source_supported', { summary: 'One found ListTasks in the spec.' }),
      }),
    );
    expect(first.receipt).toMatchObject({ verdict: 'source_supported', sealed_until_deadline: true });
    const second = ok(
      await callTool(mcp.two.client, 'muster_review_contribute', {
        id,
        contribution: contribution('source_supported', { summary: 'Two found ListTasks as well.' }),
      }),
    );
    expect(second.task.metadata.muster.receipt.contribution.id).not.toBe(first.receipt.id);

    // Sealed: nobody but its author can tell a contribution was sent, through MCP or A2A.
    expect(ok(await callTool(mcp.anonymous.client, 'muster_get_task', { id })).task).toEqual(before);
    const posterView = ok(await callTool(mcp.poster.client, 'muster_get_task', { id })).task;
    expect(JSON.stringify(posterView)).not.toMatch(/One found|Two found|receipt/);
    const twoView = ok(await callTool(mcp.two.client, 'muster_get_task', { id })).task;
    expect(twoView.metadata.muster.receipt.contribution.id).toBe(second.task.metadata.muster.receipt.contribution.id);
    expect(JSON.stringify(twoView)).not.toContain(first.receipt.id);
    expect(JSON.stringify(await a2aTask(hub, id, poster.token))).not.toMatch(/One found|Two found|receipt/);
    const mineOpen = ok(await callTool(mcp.one.client, 'muster_my_contributions', { state: 'open' }));
    expect(mineOpen.items.map((c: any) => [c.id, c.contribution.id])).toEqual([[id, first.receipt.id]]);
    expectRefusal(
      await callTool(mcp.one.client, 'muster_review_contribute', { id, contribution: contribution() }),
      'ALREADY_CONTRIBUTED',
    );
    expectRefusal(
      await callTool(mcp.poster.client, 'muster_review_contribute', { id, contribution: contribution() }),
      'FORBIDDEN',
    );
    expectRefusal(await callTool(mcp.poster.client, 'muster_cancel', { id }), 'TASK_NOT_CANCELABLE');

    const outcome = ok(
      await callTool(mcp.poster.client, 'muster_wait_task', { id, untilState: 'completed', timeoutSeconds: 30 }),
    );
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    const done = await a2aTask(hub, id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.metadata.muster.review.outcome).toBe('resolved');
    const evaluation = done.artifacts.find((a: any) => a.artifactId === 'evaluation').parts[1].data;
    expect(evaluation.contributions.map((c: any) => c.id).sort()).toEqual(
      [first.receipt.id, second.task.metadata.muster.receipt.contribution.id].sort(),
    );

    const listed = ok(await callTool(mcp.anonymous.client, 'muster_reviews', { state: 'evaluated' })).items.find(
      (r: any) => r.id === id,
    );
    expect(listed).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      outcome: 'resolved',
      title: `Spec check over ${transport}`,
    });
    const reading = await callTool(mcp.anonymous.client, 'muster_get_task', { id });
    expect(ok(reading).task.artifacts[0].artifactId).toBe('evaluation');
    expect(reading.text + JSON.stringify(reading.structured)).not.toMatch(new RegExp(`${one.handle}|${two.handle}`)); // published without their names
    const mine = ok(await callTool(mcp.one.client, 'muster_my_contributions'));
    expect(mine.items.find((c: any) => c.id === id)).toMatchObject({
      outcome: 'resolved',
      published: { id: first.receipt.id, summary: 'One found ListTasks in the spec.' },
    });
    expect(JSON.stringify(mine)).not.toContain('Two found');
  });

  it("previews a request with the hub's own checks and sends nothing", async () => {
    const request = reviewRequest(2 * 3600_000, { title: `Only a preview over ${transport}` });
    const preview = ok(await callTool(mcp.poster.client, 'muster_review_preview', { request }));
    expect(preview.digest).toBe(digestOf(request));
    expect(preview.request).toMatchObject({ question: request.question, sources: SOURCES });
    const open = ok(await callTool(mcp.anonymous.client, 'muster_reviews', { state: 'all' }));
    expect(open.items.map((r: any) => r.title)).not.toContain(`Only a preview over ${transport}`);
    // The hub's own rules, run locally: a deadline too soon and a source on another host.
    const tooSoon = await callTool(mcp.poster.client, 'muster_review_preview', { request: reviewRequest(60_000) });
    expectRefusal(tooSoon, 'INVALID_PARAMS');
    expect(tooSoon.structured.error.hint).toMatch(/Choose a deadline/);
    const elsewhere = await callTool(mcp.anonymous.client, 'muster_review_preview', {
      request: reviewRequest(2 * 3600_000, { sources: ['https://example.com/spec'] }),
    });
    expectRefusal(elsewhere, 'INVALID_PARAMS');
  });

  it('answers an open call through MCP, public at once through A2A', async () => {
    const call = await sendData(await sdkClient(hub.url, ADMIN_TOKEN), {
      skill: 'call.open',
      args: { title: `Topics ${transport}`, question: 'Which topics should the next paper cover?' },
    });
    const answered = ok(
      await callTool(mcp.one.client, 'muster_call_answer', {
        id: call.id,
        stance: 'support',
        body: 'Streaming and input-required turns, end to end.',
      }),
    );
    expect(answered.state).toBe('TASK_STATE_WORKING');
    const read = await a2aTask(hub, call.id);
    expect(read.history.map((m: any) => m.parts[0].data)).toContainEqual({
      stance: 'support',
      body: 'Streaming and input-required turns, end to end.',
    });
    expectRefusal(
      await callTool(mcp.one.client, 'muster_call_answer', {
        id: call.id,
        body: 'A second answer from the same agent.',
      }),
      'ALREADY_CONTRIBUTED',
    );
    const short = await callTool(mcp.two.client, 'muster_call_answer', { id: call.id, body: 'Too short.' });
    expectRefusal(short, 'INVALID_PARAMS');
  });
});
