/**
 * What Cairn's notes say /cairn/ refuses, and how: a refused post or contribution is an agent
 * Message whose data part is {error: {code, issues?}} with metadata.cairn.accepted false (the
 * task unaffected); no token is HTTP 401; the JSON-RPC codes for the rest (-32001, -32002,
 * -32003, -32004, -32007, -32009, -32700, -32601, -32602). On the suite's store.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clusterOnTestDatabase } from '../helpers/cluster.js';
import { testDialect } from '../helpers/database.js';
import { register, rest, rpc, type Registered } from '../helpers/hub.js';
import type { NodeProcess } from '../helpers/nodes.js';
import {
  approvalOf,
  cairnBase,
  cairnClient,
  cairnRpc,
  digestOf,
  openTask,
  post,
  refusalOf,
  report,
  sendData,
} from './cairn-fixture.js';

const ADMIN = 'cairn-refusals-admin';

describe(`Cairn's refusals at /cairn/ (${testDialect === 'postgres' ? 'two nodes, PostgreSQL' : 'one node, SQLite'})`, () => {
  const cluster = clusterOnTestDatabase('dialect_cairn_refusals', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN },
  }));
  const node = (i: number): NodeProcess => cluster.nodes[i % cluster.nodes.length]!;
  const agent = (handle: string): Promise<Registered> => register(node(0), handle, {}, ADMIN);

  it('refused posts are Messages naming the fault; operation_id is an idempotency key', async () => {
    const poster = await agent('refused-poster');
    const client = await cairnClient(node(0), poster.token);
    const request = openTask(3_600_000);

    const changed = refusalOf(await post(client, { ...request, goal: `${request.goal} edited` }, approvalOf(request)));
    expect(changed).toMatchObject({
      code: 'input_preview_changed',
      issues: [{ path: 'approval.public_input_digest' }],
    });
    const badSource = openTask(3_600_000, { source_urls: ['https://example.com/x'] });
    expect(refusalOf(await post(client, badSource))).toMatchObject({
      code: 'invalid_payload',
      issues: [{ path: 'request.source_urls[0]' }],
    });
    const paid = openTask(3_600_000, { budget: { currency: 'USD', max_total_minor: 500 } });
    expect(refusalOf(await post(client, paid)).issues[0].path).toBe('request.budget.max_total_minor');
    const wrongScope = refusalOf(await post(client, request, { ...approvalOf(request), scope: 'this_task' }));
    expect(wrongScope.issues[0].path).toBe('approval.scope');
    const leaky = openTask(3_600_000, { goal: 'Does the page at C:\\Users\\me\\secrets.txt say it is stable' });
    expect(refusalOf(await post(client, leaky)).code).toBe('private_content');

    // The same operation twice (another messageId, another node): one task. Reused for another request: refused.
    const first = await post(client, request);
    const again = await post(await cairnClient(node(1), poster.token), request);
    expect(again.id).toBe(first.id);
    const other = openTask(3_600_000, { operation_id: request.operation_id, goal: 'Another question about the spec' });
    expect(refusalOf(await post(client, other)).code).toBe('operation_id_reused');
    // Two open at once: a third is refused by the cap.
    await post(client, openTask(3_600_000));
    const third = refusalOf(await post(client, openTask(3_600_000)));
    expect(third.code).toMatch(/cap$/);
  });

  it('refused contributions are Messages; the task is unaffected', async () => {
    const [poster, poster2, c1] = await Promise.all([agent('r-poster'), agent('r-poster2'), agent('r-c1')]);
    const client = await cairnClient(node(0), poster.token);
    const tasks = [
      await post(client, openTask(3_600_000)),
      await post(client, openTask(3_600_000)),
      await post(await cairnClient(node(1), poster2.token), openTask(3_600_000)),
      await post(await cairnClient(node(1), poster2.token), openTask(3_600_000)),
    ];
    const contributor = await cairnClient(node(1), c1.token);
    const before = (await cairnRpc(node(0), 'GetTask', { id: tasks[0].id })).body.result;

    const invalid = refusalOf(await sendData(contributor, report('source_maybe'), tasks[0].id));
    expect(invalid).toMatchObject({ code: 'invalid_payload', issues: [{ path: 'verdict' }] });
    const unapproved = refusalOf(
      await sendData(contributor, report(undefined, { public_output_approved: false }), tasks[0].id),
    );
    expect(unapproved.issues[0].path).toBe('public_output_approved');
    const foreign = refusalOf(
      await sendData(contributor, report(undefined, { source_urls: ['https://nodejs.org/api/fs.html'] }), tasks[0].id),
    );
    expect(foreign.issues[0].path).toBe('source_urls[0]');
    expect(refusalOf(await sendData(client, report(), tasks[0].id)).code).toBe('not_allowed'); // the poster

    const accepted = await sendData(contributor, report(), tasks[0].id);
    expect(accepted.metadata.cairn.contribution.sealed_until_deadline).toBe(true);
    const duplicate = await sendData(contributor, report('source_unclear'), tasks[0].id);
    expect(refusalOf(duplicate).code).toBe('duplicate_contribution');
    expect(duplicate.role).toBe('ROLE_AGENT');
    await sendData(contributor, report(), tasks[1].id);
    await sendData(contributor, report(), tasks[2].id);
    expect(refusalOf(await sendData(contributor, report(), tasks[3].id)).code).toBe('daily_cap');
    expect((await cairnRpc(node(1), 'GetTask', { id: tasks[0].id })).body.result).toEqual(before);
  });

  it('no token is HTTP 401; the JSON-RPC codes for everything else', async () => {
    const [poster, c1] = await Promise.all([agent('codes-poster'), agent('codes-c1')]);
    const task = await post(await cairnClient(node(0), poster.token), openTask(3_600_000));
    const params = {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: report() }], taskId: task.id },
    };

    const anonymous = await cairnRpc(node(0), 'SendMessage', params);
    expect(anonymous.status).toBe(401);
    expect((await cairnRpc(node(0), 'SendMessage', params, 'not-a-token')).status).toBe(401);
    const noVersion = await rpc(`${cairnBase(node(1))}api/a2a`, 'GetTask', { id: task.id });
    expect(noVersion.body.error.code).toBe(-32009);
    const old = await rpc(cairnBase(node(1)), 'GetTask', { id: task.id }, { headers: { 'A2A-Version': '0.3' } });
    expect(old.body.error.code).toBe(-32009);
    expect((await cairnRpc(node(1), 'GetTask', { id: randomUUID() })).body.error.code).toBe(-32001);
    expect((await cairnRpc(node(1), 'CancelTask', { id: task.id })).body.error.code).toBe(-32002);
    expect((await cairnRpc(node(0), 'CancelTask', { id: task.id }, poster.token)).body.error.code).toBe(-32002);
    expect((await cairnRpc(node(0), 'SendStreamingMessage', params, c1.token)).body.error.code).toBe(-32004);
    expect((await cairnRpc(node(0), 'SubscribeToTask', { id: task.id })).body.error.code).toBe(-32004);
    const push = { taskId: task.id, url: 'https://example.com/hook' };
    expect((await cairnRpc(node(0), 'CreateTaskPushNotificationConfig', push, c1.token)).body.error.code).toBe(-32003);
    expect((await cairnRpc(node(0), 'GetExtendedAgentCard', {}, c1.token)).body.error.code).toBe(-32007);
    expect((await cairnRpc(node(0), 'tasks/get', { id: task.id })).body.error.code).toBe(-32601);
    expect((await cairnRpc(node(0), 'GetTask', {})).body.error.code).toBe(-32602);
    const notJson = await fetch(`${cairnBase(node(0))}api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: '{"jsonrpc": "2.0", ',
    });
    expect(((await notJson.json()) as any).error.code).toBe(-32700);
    // Another kind's task is not found here, though the hub's base has it.
    const call = await rpc(
      node(0).url,
      'SendMessage',
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ data: { skill: 'call.open', args: { title: 'T', question: 'Q?' } } }],
        },
      },
      { token: ADMIN, headers: { 'A2A-Version': '1.0' } },
    );
    expect((await cairnRpc(node(1), 'GetTask', { id: call.body.result.task.id })).body.error.code).toBe(-32001);
    // The digest is over the request as posted: key order does not matter, a changed field does.
    const request = openTask(3_600_000);
    const reordered = Object.fromEntries(Object.entries(request).reverse());
    expect(digestOf(reordered)).toBe(digestOf(request));
    const reposted = await post(await cairnClient(node(1), c1.token), reordered, approvalOf(request));
    expect(reposted.status.state).toBe('TASK_STATE_WORKING');
    // Unknown routes under /cairn/ answer JSON.
    const missing = await rest(node(0), 'GET', 'cairn/api/nothing');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});
