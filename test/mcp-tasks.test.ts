/**
 * The direct tools of the MCP door (issue 15), with the official MCP client over Streamable HTTP
 * (/mcp) and over stdio (a real `muster mcp`), on SQLite or PostgreSQL (MUSTER_TEST_PG): the task
 * tools listed (the read-only public ones without a token), a direct task sent, asked, replied,
 * answered and canceled through MCP and read through A2A with the official SDK client, and the
 * refusals that say what to do instead. Reviews and calls: mcp-tasks-reviews.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, toolNames, type McpTransportName } from './helpers/mcp.js';
import {
  a2aTask,
  connectTaskAgents,
  expectRefusal,
  ok,
  startTaskToolsHub,
  type TaskToolConnections,
} from './helpers/mcp-tasks.js';
import { digestOf, reviewRequest } from './helpers/review.js';

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
    const seenBySender = await a2aTask(hub, id, poster.token);
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

    const final = await a2aTask(hub, id, poster.token);
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
    expect((await a2aTask(hub, sent.task.id, two.token)).metadata.muster.cancelReason).toBe('Found it myself');
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
