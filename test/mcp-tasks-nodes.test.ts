/**
 * The task tools of the MCP door (issue 15) across two nodes of one PostgreSQL database, each
 * agent's MCP connection (Streamable HTTP) on a node of its own: a direct task answered through the
 * other node, and a contribution that stays sealed there. Runs only under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, type Registered } from './helpers/hub.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { callTool, connectMcp, type McpConnection } from './helpers/mcp.js';
import { ok } from './helpers/mcp-tasks.js';
import { contribution, digestOf, reviewRequest } from './helpers/review.js';

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
