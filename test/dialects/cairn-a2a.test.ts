/**
 * Cairn's client against /cairn/, with the official SDK client as Cairn's notes show it: the
 * card, a post ({request, approval} as cairn.open_task/0.1), sealed contributions
 * (cairn.task.contribution/0.1), the receipt in metadata.cairn.contribution, the evaluation
 * after the deadline, and the same review read natively (A2A, REST, the web feed). On the
 * suite's store: two nodes of one PostgreSQL database, or one node on SQLite.
 */
import { GetTaskRequest, ListTasksRequest } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { clusterOnTestDatabase } from '../helpers/cluster.js';
import { testDialect } from '../helpers/database.js';
import { register, rest, rpc, type Registered } from '../helpers/hub.js';
import type { NodeProcess } from '../helpers/nodes.js';
import {
  approvalOf,
  asJson,
  cairnBase,
  cairnClient,
  cairnRpc,
  evaluated,
  openTask,
  post,
  report,
  sendData,
} from './cairn-fixture.js';

const ADMIN = 'cairn-a2a-admin';

describe(`Cairn's A2A client at /cairn/ (${testDialect === 'postgres' ? 'two nodes, PostgreSQL' : 'one node, SQLite'})`, () => {
  const cluster = clusterOnTestDatabase('dialect_cairn', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN, MUSTER_REVIEW_MIN_DEADLINE_S: '1' },
  }));
  const node = (i: number): NodeProcess => cluster.nodes[i % cluster.nodes.length]!;
  const agent = (handle: string): Promise<Registered> => register(node(0), handle, {}, ADMIN);

  it('serves its card; the SDK client built from /cairn/ posts, contributes and reads the evaluation', async () => {
    const card = await rest(node(0), 'GET', 'cairn/.well-known/agent-card.json');
    expect(card.body.supportedInterfaces).toEqual([
      { url: cairnBase(node(0)), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    expect(card.body.capabilities).toEqual({ streaming: false, pushNotifications: false, extendedAgentCard: false });

    const [poster, c1, c2] = await Promise.all([agent('cairn-poster'), agent('cairn-c1'), agent('cairn-c2')]);
    const request = openTask(4_000);
    const started = Date.now();
    const task = await post(await cairnClient(node(0), poster.token), request);
    expect(Date.now() - started).toBeLessThan(2_000); // never blocks until the deadline
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    expect(task.id).toBe(task.contextId);
    expect(task.metadata.cairn).toMatchObject({
      ...request,
      id: task.id,
      public_input_digest: approvalOf(request).public_input_digest,
    });
    expect(task.metadata.muster).toBeUndefined();

    const receipts: Record<string, string> = {};
    for (const [who, verdict, via] of [
      [c1, 'source_supported', 1],
      [c2, 'source_supported', 0],
    ] as const) {
      const answer = await sendData(await cairnClient(node(via), who.token), report(verdict), task.id);
      expect(answer.status.state).toBe('TASK_STATE_WORKING');
      expect(answer.metadata.cairn.contribution).toMatchObject({ verdict, sealed_until_deadline: true });
      receipts[answer.metadata.cairn.contribution.id] = verdict;
    }
    // The contributor reads its receipt back; anyone else reads the task as it was before.
    const mine = await cairnRpc(node(1), 'GetTask', { id: task.id }, c1.token);
    expect(Object.keys(receipts)).toContain(mine.body.result.metadata.cairn.contribution.id);
    const anyone = await cairnRpc(node(1), 'GetTask', { id: task.id });
    expect(anyone.body.result).toEqual({ ...task, metadata: { cairn: { ...task.metadata.cairn } } });

    const done = await evaluated(node(1), task.id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.metadata.cairn.outcome).toBe('resolved');
    const evaluation = done.artifacts.find((a: any) => a.name === 'Evaluation').parts[1].data;
    expect(evaluation).toMatchObject({ outcome: 'resolved', verdict: 'source_supported', contribution_count: 2 });
    expect(Object.fromEntries(evaluation.contributions.map((c: any) => [c.id, c.verdict]))).toEqual(receipts);
    expect(evaluation.contributions[0]).toMatchObject({
      conditions: 'Read on the published 1.0 text',
      limitations: 'Did not check older drafts',
    });
    expect(JSON.stringify(done)).not.toMatch(/cairn-poster|cairn-c1|cairn-c2/);
    // A message to an evaluated task is refused as an unsupported operation.
    const late = await cairnRpc(node(0), 'SendMessage', dataParams(report(), task.id), c1.token);
    expect(late.body.error.code).toBe(-32004);
  });

  it('a review posted through /cairn/ is the same task natively: A2A, REST and the web feed', async () => {
    const [poster, c1] = await Promise.all([agent('native-poster'), agent('native-c1')]);
    const request = openTask(600_000, { goal: 'Is the http module documented as stable in the nodejs docs' });
    const task = await post(await cairnClient(node(0), poster.token), request);

    const a2a = await rpc(node(1).url, 'GetTask', { id: task.id }, { headers: { 'A2A-Version': '1.0' } });
    expect(a2a.body.result.metadata.muster).toMatchObject({
      kind: 'review',
      from: 'native-poster',
      review: { openTask: request, request: { question: request.goal, sources: request.source_urls } },
    });
    expect(a2a.body.result.status).toEqual(task.status);
    const viaRest = await rest(node(1), 'GET', `api/tasks/${task.id}`);
    expect(viaRest.body.metadata.muster.review.digest).toBe(approvalOf(request).public_input_digest);
    const feed = await fetch(`${node(0).url}feed/tasks/${task.id}`);
    expect(feed.status).toBe(200);
    expect(await feed.text()).toContain(request.goal);
    const listed = await fetch(`${node(1).url}feed/reviews`).then((r) => r.text());
    expect(listed).toContain(request.goal);

    // Sealed: a contribution changes nothing anyone else reads, natively or through /cairn/.
    const before = await Promise.all([
      rpc(node(0).url, 'GetTask', { id: task.id }, { headers: { 'A2A-Version': '1.0' } }),
      cairnRpc(node(1), 'GetTask', { id: task.id }),
    ]);
    const receipt = await sendData(await cairnClient(node(1), c1.token), report('source_unclear'), task.id);
    expect(receipt.metadata.cairn.contribution.verdict).toBe('source_unclear');
    const after = await Promise.all([
      rpc(node(0).url, 'GetTask', { id: task.id }, { headers: { 'A2A-Version': '1.0' } }),
      cairnRpc(node(1), 'GetTask', { id: task.id }),
    ]);
    expect(after.map((a) => a.body)).toEqual(before.map((b) => b.body));
    // Cairn's reader, the SDK's default factory built from /cairn/, reads what anyone reads there.
    const reader = await new ClientFactory().createFromUrl(cairnBase(node(1)));
    expect(asJson(await reader.getTask(GetTaskRequest.fromJSON({ id: task.id })))).toEqual(after[1]!.body.result);
    // The contributor reads the same receipt natively.
    const native = await rpc(
      node(0).url,
      'GetTask',
      { id: task.id },
      { token: c1.token, headers: { 'A2A-Version': '1.0' } },
    );
    expect(native.body.result.metadata.muster.receipt.contribution).toEqual(receipt.metadata.cairn.contribution);
    // Cairn's public view is the native one with the agent handles left out.
    const cairnView = after[1]!.body.result;
    expect(cairnView.status).toEqual(after[0]!.body.result.status);
    expect(JSON.stringify(after[0]!.body.result)).toContain('native-poster');
    expect(JSON.stringify(cairnView)).not.toContain('native-poster');
  });

  it('ListTasks lists reviews only, by status, 1 to 50 a page, the token bound to its status', async () => {
    const poster = await agent('list-poster');
    const mine = await post(await cairnClient(node(0), poster.token), openTask(600_000));
    await rpc(
      node(0).url,
      'SendMessage',
      {
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ data: { skill: 'call.open', args: { title: 'A call', question: 'Which topics next?' } } }],
        },
      },
      { token: ADMIN, headers: { 'A2A-Version': '1.0' } },
    );
    const client = await cairnClient(node(1));
    const page = await client.listTasks(ListTasksRequest.fromJSON({ status: 'TASK_STATE_WORKING', pageSize: 50 }));
    const ids = page.tasks.map((t) => t.id);
    expect(ids).toContain(mine.id);
    const all = await cairnRpc(node(1), 'ListTasks', { pageSize: 50 });
    expect(all.body.result.tasks.every((t: any) => t.metadata.cairn.schema === 'cairn.open_task/0.1')).toBe(true);
    expect(all.body.result).toMatchObject({ pageSize: 50, totalSize: all.body.result.tasks.length });
    const working = await cairnRpc(node(0), 'ListTasks', { status: 'WORKING', pageSize: 1 });
    expect(working.body.result.tasks).toHaveLength(1);
    expect(working.body.result.tasks[0].status.state).toBe('TASK_STATE_WORKING');
    const token = working.body.result.nextPageToken;
    expect(token).not.toBe('');
    const next = await cairnRpc(node(1), 'ListTasks', { status: 'WORKING', pageSize: 1, pageToken: token });
    expect(next.body.result.tasks[0].id).not.toBe(working.body.result.tasks[0].id);
    const moved = await cairnRpc(node(0), 'ListTasks', { status: 'COMPLETED', pageToken: token });
    expect(moved.body.error.code).toBe(-32602);
    expect((await cairnRpc(node(0), 'ListTasks', { pageSize: 51 })).body.error.code).toBe(-32602);
    expect((await cairnRpc(node(0), 'ListTasks', { status: 'CANCELED' })).body.error.code).toBe(-32602);
  });
});

function dataParams(data: unknown, taskId?: string) {
  return {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) },
  };
}
