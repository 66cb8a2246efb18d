/**
 * The direct, review and call tools of the MCP door (issue 15), with the official MCP client over
 * Streamable HTTP (/mcp) and over stdio (a real `muster mcp`), on SQLite or PostgreSQL
 * (MUSTER_TEST_PG). What the tools do is checked through A2A too, with the official SDK client.
 * On PostgreSQL, also across two nodes: each agent's MCP connection on a node of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import {
  callTool,
  connectMcp,
  toolNames,
  type McpConnection,
  type McpTransportName,
  type ToolOutcome,
} from './helpers/mcp.js';
import { contribution, digestOf, reviewRequest, sendData, SOURCES } from './helpers/review.js';
import { sdkClient, wire } from './helpers/sdk.js';

let hub: TestHub;
beforeAll(async () => {
  // Deadlines of seconds, so a review is evaluated within the test; quotas off, as both transports post.
  hub = await startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1', MUSTER_RATE_LIMITS: 'off' });
});
afterAll(() => hub.destroy());

/** GetTask over A2A, with the official SDK client (anonymous, or as `token`). */
const a2aTask = async (id: string, token?: string): Promise<any> =>
  wire(await (await sdkClient(hub.url, token)).getTask({ tenant: '', id, historyLength: undefined }));

/** A refusal as the door answers it: a tool error with the hub's code and a hint. */
function expectRefusal(outcome: ToolOutcome, code: string): void {
  expect(outcome.isError, outcome.text).toBe(true);
  expect(outcome.structured.error.code).toBe(code);
  expect(outcome.structured.error.hint, JSON.stringify(outcome.structured)).toEqual(expect.any(String));
  expect(outcome.text).toContain('Hint:');
}

const ok = (outcome: ToolOutcome): any => {
  expect(outcome.isError, outcome.text).toBe(false);
  return outcome.structured;
};

describe.each<McpTransportName>(['http', 'stdio'])('the task tools over %s', (transport) => {
  let poster: Registered, one: Registered, two: Registered;
  const mcp = {} as Record<'poster' | 'one' | 'two' | 'anonymous', McpConnection>;
  beforeAll(async () => {
    const named = (h: string) => register(hub, `${transport}-${h}`, {}, ADMIN_TOKEN);
    [poster, one, two] = await Promise.all([named('poster'), named('one'), named('two')]);
    [mcp.poster, mcp.one, mcp.two, mcp.anonymous] = await Promise.all([
      connectMcp(transport, hub, poster.token),
      connectMcp(transport, hub, one.token),
      connectMcp(transport, hub, two.token),
      connectMcp(transport, hub),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(mcp).map((c) => c?.close()));
  });

  it('lists its tools to an agent, and only the read-only public ones without a token', async () => {
    const mine = [
      'send',
      'reply',
      'respond',
      'cancel',
      'inbox',
      'sent',
      'get_task',
      'reviews',
      'review_digest',
      'review_preview',
      'review_post',
      'review_contribute',
      'my_contributions',
      'call_answer',
    ];
    expect(await toolNames(mcp.one.client)).toEqual(expect.arrayContaining(mine.map((n) => `muster_${n}`)));
    const open = await toolNames(mcp.anonymous.client);
    expect(open).toEqual(
      expect.arrayContaining(['muster_get_task', 'muster_reviews', 'muster_review_digest', 'muster_review_preview']),
    );
    for (const name of [
      'send',
      'reply',
      'respond',
      'cancel',
      'inbox',
      'sent',
      'review_post',
      'review_contribute',
      'my_contributions',
      'call_answer',
    ])
      expect(open).not.toContain(`muster_${name}`);
    const listed = (await mcp.one.client.listTools()).tools.find((t) => t.name === 'muster_respond')!;
    expect(listed.inputSchema.required).toEqual(['id', 'state']);
    expect((listed.inputSchema.properties as any).state.enum).toEqual([
      'working',
      'input-required',
      'completed',
      'failed',
      'rejected',
    ]);
  });

  it('a direct task: send through MCP, the target asks and then answers through MCP, the sender replies through MCP and reads the answer through A2A', async () => {
    const sent = ok(
      await callTool(mcp.poster.client, 'muster_send', {
        to: one.handle,
        text: 'Please summarise the release notes.',
        data: { release: '1.2' },
      }),
    );
    expect(sent.state).toBe('TASK_STATE_SUBMITTED');
    expect(sent.next).toMatch(/muster_wait_task/);
    const id = sent.task.id;

    const inbox = ok(await callTool(mcp.one.client, 'muster_inbox'));
    expect(inbox.items.map((e: any) => e.id)).toEqual([id]);
    expect(inbox.items[0].counterparty.handle).toBe(poster.handle);
    const read = ok(await callTool(mcp.one.client, 'muster_get_task', { id }));
    expect(read.task.history[0].parts).toEqual([
      { text: 'Please summarise the release notes.' },
      { data: { release: '1.2' } },
    ]);
    expect(read.next).toContain(`muster_respond {id: "${id}", state: "completed", text}`); // the target's next step, not the sender's

    // The sender waits through MCP while the target asks through MCP.
    const waiting = callTool(mcp.poster.client, 'muster_wait_task', {
      id,
      untilState: 'input-required',
      timeoutSeconds: 30,
    });
    const asked = ok(
      await callTool(mcp.one.client, 'muster_respond', {
        id,
        state: 'input-required',
        text: 'Which audience: users or operators?',
      }),
    );
    expect(asked.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.next).toContain(`muster_wait_task {id: "${id}", untilState: "working"}`);
    const waited = ok(await waiting);
    expect([waited.state, waited.timedOut, waited.next]).toEqual([
      'TASK_STATE_INPUT_REQUIRED',
      false,
      expect.stringContaining(`muster_reply {id: "${id}", text: "<your answer>"}`), // the tool and its arguments
    ]);
    const seenBySender = await a2aTask(id, poster.token);
    expect(seenBySender.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(seenBySender.status.message.parts[0].text).toBe('Which audience: users or operators?');
    expect(ok(await callTool(mcp.poster.client, 'muster_get_task', { id })).next).toMatch(/muster_reply/);

    const replied = ok(await callTool(mcp.poster.client, 'muster_reply', { id, text: 'Operators.' }));
    expect(replied.state).toBe('TASK_STATE_WORKING');

    const done = ok(
      await callTool(mcp.one.client, 'muster_respond', {
        id,
        state: 'completed',
        text: 'Done.',
        artifacts: [{ name: 'summary.md', text: '# 1.2 for operators' }],
      }),
    );
    expect(done.state).toBe('TASK_STATE_COMPLETED');
    expect(done.next).toBeUndefined();

    const final = await a2aTask(id, poster.token);
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    expect(final.artifacts).toEqual([
      expect.objectContaining({ name: 'summary.md', parts: [{ text: '# 1.2 for operators' }] }),
    ]);
    expect(final.history.map((m: any) => m.parts[0].text)).toEqual(
      expect.arrayContaining(['Please summarise the release notes.', 'Operators.']),
    );

    expect(
      ok(await callTool(mcp.poster.client, 'muster_sent', { state: 'all' })).items.map((e: any) => e.id),
    ).toContain(id);
    expect(ok(await callTool(mcp.one.client, 'muster_inbox')).items).toEqual([]); // open only, by default
    expect(
      ok(await callTool(mcp.one.client, 'muster_inbox', { state: 'completed' })).items.map((e: any) => e.id),
    ).toEqual([id]);
  });

  it('cancels a task it sent, with the reason kept on the task', async () => {
    const sent = ok(await callTool(mcp.poster.client, 'muster_send', { to: two.handle, text: 'Never mind soon.' }));
    const canceled = ok(
      await callTool(mcp.poster.client, 'muster_cancel', { id: sent.task.id, reason: 'Found it myself' }),
    );
    expect(canceled.state).toBe('TASK_STATE_CANCELED');
    expect((await a2aTask(sent.task.id, two.token)).metadata.muster.cancelReason).toBe('Found it myself');
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
    expect((await a2aTask(id)).metadata.muster).toMatchObject({
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
    expect(JSON.stringify(await a2aTask(id, poster.token))).not.toMatch(/One found|Two found|receipt/);
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
    const done = await a2aTask(id);
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
    const read = await a2aTask(call.id);
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

  it('refuses with a tool error that says what to do instead', async () => {
    const request = reviewRequest(2 * 3600_000);
    const wrong = await callTool(mcp.poster.client, 'muster_review_post', {
      request,
      approvedDigest: digestOf({ ...request, question: 'Something else?' }),
    });
    expectRefusal(wrong, 'APPROVAL_MISMATCH');
    expect(
      ok(await callTool(mcp.anonymous.client, 'muster_reviews', { state: 'all' })).items.map((r: any) => r.question),
    ).not.toContain('Something else?');

    expectRefusal(
      await callTool(mcp.poster.client, 'muster_send', { to: 'nobody-here', text: 'Hello?' }),
      'AGENT_NOT_FOUND',
    );
    expectRefusal(await callTool(mcp.poster.client, 'muster_send', { to: one.handle }), 'USAGE');

    const sent = ok(await callTool(mcp.poster.client, 'muster_send', { to: one.handle, text: 'For one only.' }));
    expectRefusal(
      await callTool(mcp.two.client, 'muster_respond', { id: sent.task.id, state: 'completed', text: 'Not mine.' }),
      'TASK_NOT_FOUND',
    );
    expectRefusal(
      await callTool(mcp.poster.client, 'muster_respond', { id: sent.task.id, state: 'completed' }),
      'FORBIDDEN',
    ); // the sender does not respond
    expectRefusal(await callTool(mcp.two.client, 'muster_get_task', { id: sent.task.id }), 'TASK_NOT_FOUND');
    expectRefusal(await callTool(mcp.anonymous.client, 'muster_get_task', { id: sent.task.id }), 'TASK_NOT_FOUND');
    expect((await rpc(hub.url, 'GetTask', { id: sent.task.id }, { token: one.token })).body.result.status.state).toBe(
      'TASK_STATE_SUBMITTED',
    );
  });
});

describe.skipIf(!testPostgres)('the task tools across two nodes of one PostgreSQL database', () => {
  const ADMIN = 'mcp-tasks-nodes-admin';
  const { nodes } = clusterOnPostgres('mcp_tasks', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN, MUSTER_REVIEW_MIN_DEADLINE_S: '1' },
    startMs: 30_000,
  }));
  let A: NodeProcess, B: NodeProcess;
  let sender: Registered, target: Registered;
  let onA: McpConnection, onB: McpConnection, anonymousOnA: McpConnection;
  beforeAll(async () => {
    [A, B] = nodes as [NodeProcess, NodeProcess];
    [sender, target] = await Promise.all([
      register(A, 'nodes-sender', {}, ADMIN),
      register(A, 'nodes-target', {}, ADMIN),
    ]);
    [onA, onB, anonymousOnA] = await Promise.all([
      connectMcp('http', A, sender.token),
      connectMcp('http', B, target.token),
      connectMcp('http', A),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([onA, onB, anonymousOnA].map((c) => c?.close()));
  });

  it('a task sent through A is answered through B; the sender following it on A sees the answer', async () => {
    const sent = ok(await callTool(onA.client, 'muster_send', { to: target.handle, text: 'Across nodes, please.' }));
    expect(ok(await callTool(onB.client, 'muster_inbox')).items.map((e: any) => e.id)).toEqual([sent.task.id]);
    const waiting = callTool(onA.client, 'muster_wait_task', {
      id: sent.task.id,
      untilState: 'completed',
      timeoutSeconds: 30,
    });
    ok(await callTool(onB.client, 'muster_respond', { id: sent.task.id, state: 'completed', text: 'Answered on B.' }));
    const waited = ok(await waiting);
    expect([waited.state, waited.task.status.message.parts[0].text]).toEqual([
      'TASK_STATE_COMPLETED',
      'Answered on B.',
    ]);
  });

  it('a contribution sent through B stays sealed to everyone reading through A', async () => {
    const request = reviewRequest(60_000);
    const posted = ok(await callTool(onA.client, 'muster_review_post', { request, approvedDigest: digestOf(request) }));
    const before = ok(await callTool(anonymousOnA.client, 'muster_get_task', { id: posted.task.id })).task;
    const sealed = ok(
      await callTool(onB.client, 'muster_review_contribute', {
        id: posted.task.id,
        contribution: contribution('source_unclear', { summary: 'Sealed on B.' }),
      }),
    );
    expect(sealed.receipt.verdict).toBe('source_unclear');
    expect(ok(await callTool(anonymousOnA.client, 'muster_get_task', { id: posted.task.id })).task).toEqual(before);
    expect(JSON.stringify(ok(await callTool(onA.client, 'muster_get_task', { id: posted.task.id })))).not.toMatch(
      /Sealed on B|receipt/,
    );
    expect(ok(await callTool(onA.client, 'muster_my_contributions')).items).toEqual([]);
  });
});
