/**
 * Cairn's older HTTP routes under /cairn/api/, with raw fetch as Cairn's notes list them: review
 * tasks by mode (the cursor bound to its mode), one task, create and contribute with
 * Idempotency-Key receipts, open calls and their public answers (cairn.call.response/0.1), and
 * agent registration. On the suite's store: two nodes of one PostgreSQL database, or one on SQLite.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clusterOnTestDatabase } from '../helpers/cluster.js';
import { testDialect } from '../helpers/database.js';
import { rest, rpc } from '../helpers/hub.js';
import type { NodeProcess } from '../helpers/nodes.js';
import { approvalOf, cairnRpc, evaluated, openTask, report } from './cairn-fixture.js';

const ADMIN = 'cairn-http-admin';

describe(`Cairn's HTTP routes at /cairn/api/ (${testDialect === 'postgres' ? 'two nodes, PostgreSQL' : 'one node, SQLite'})`, () => {
  const cluster = clusterOnTestDatabase('dialect_cairn_http', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN, MUSTER_REVIEW_MIN_DEADLINE_S: '1' },
  }));
  const node = (i: number): NodeProcess => cluster.nodes[i % cluster.nodes.length]!;
  const registered = async (handle: string) => {
    const res = await rest(node(1), 'POST', 'cairn/api/agent/register', { body: { handle }, token: ADMIN });
    expect(res.status).toBe(201);
    return { handle, token: res.body.token as string };
  };

  it('registers agents as POST /api/agents does, and refuses a taken handle the same way', async () => {
    const agent = await registered('http-agent');
    const me = await rest(node(0), 'GET', 'api/me', { token: agent.token });
    expect(me.body.handle).toBe('http-agent');
    const taken = await rest(node(0), 'POST', 'cairn/api/agent/register', {
      body: { handle: 'http-agent' },
      token: ADMIN,
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('handle_taken');
  });

  it('creates, contributes with Idempotency-Key receipts, and lists by mode', async () => {
    const [poster, c1, c2] = await Promise.all([registered('h-poster'), registered('h-c1'), registered('h-c2')]);
    const request = openTask(3_000);
    const body = { request, approval: approvalOf(request) };
    const anonymous = await rest(node(0), 'POST', 'cairn/api/a2a-tasks', { body });
    expect(anonymous.status).toBe(401);
    const key = randomUUID();
    const created = await rest(node(0), 'POST', 'cairn/api/a2a-tasks', {
      body,
      token: poster.token,
      headers: { 'Idempotency-Key': key },
    });
    expect(created.status).toBe(201);
    expect(created.body.metadata.cairn).toMatchObject({ goal: request.goal, operation_id: request.operation_id });
    const replayed = await rest(node(1), 'POST', 'cairn/api/a2a-tasks', {
      body,
      token: poster.token,
      headers: { 'Idempotency-Key': key },
    });
    expect(replayed.body.id).toBe(created.body.id);
    const id = created.body.id as string;
    const bad = await rest(node(1), 'POST', `cairn/api/a2a-tasks/${id}/contributions`, {
      body: report('source_maybe'),
      token: c1.token,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_payload', issues: [{ path: 'verdict' }] });

    const contributionKey = randomUUID();
    const contribute = () =>
      rest(node(1), 'POST', `cairn/api/a2a-tasks/${id}/contributions`, {
        body: report(),
        token: c1.token,
        headers: { 'Idempotency-Key': contributionKey },
      });
    const first = await contribute();
    expect(first.status).toBe(201);
    expect(first.body.metadata.cairn.contribution.verdict).toBe('source_supported');
    const retried = await contribute();
    expect(retried.body.metadata.cairn.contribution).toEqual(first.body.metadata.cairn.contribution);
    const duplicate = await rest(node(0), 'POST', `cairn/api/a2a-tasks/${id}/contributions`, {
      body: report(),
      token: c1.token,
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('duplicate_contribution');
    await rest(node(0), 'POST', `cairn/api/a2a-tasks/${id}/contributions`, { body: report(), token: c2.token });

    const one = await rest(node(0), 'GET', `cairn/api/a2a-tasks/${id}`);
    expect(one.body).toEqual((await cairnRpc(node(1), 'GetTask', { id })).body.result);
    expect(one.body.metadata.cairn.contribution).toBeUndefined();
    const open = await rest(node(1), 'GET', 'cairn/api/a2a-tasks?mode=open&limit=50');
    expect(open.body.tasks.map((t: any) => t.id)).toContain(id);
    expect(open.body.mode).toBe('open');

    // The contributor's own contributions, with their receipts, over the token.
    expect((await rest(node(0), 'GET', 'cairn/api/a2a-tasks/mine')).status).toBe(401);
    const mine = await rest(node(0), 'GET', 'cairn/api/a2a-tasks/mine', { token: c1.token });
    expect(mine.body.contributions).toEqual([
      { task_id: id, contribution: first.body.metadata.cairn.contribution, task: expect.objectContaining({ id }) },
    ]);
    expect(
      (await rest(node(1), 'GET', 'cairn/api/a2a-tasks/mine', { token: poster.token })).body.contributions,
    ).toEqual([]);

    await evaluated(node(0), id);
    const after = await rest(node(1), 'GET', 'cairn/api/a2a-tasks/mine', { token: c1.token });
    expect(after.body.contributions[0].task.metadata.cairn.outcome).toBe('resolved');
    const evaluatedPage = await rest(node(0), 'GET', 'cairn/api/a2a-tasks?mode=evaluated&limit=1');
    expect(evaluatedPage.body.tasks[0]).toMatchObject({ id, metadata: { cairn: { outcome: 'resolved' } } });
    const reopen = await rest(node(1), 'GET', 'cairn/api/a2a-tasks?mode=open&limit=50');
    expect(reopen.body.tasks.map((t: any) => t.id)).not.toContain(id);
    const second = openTask(3_600_000); // a post with no Idempotency-Key: its operation_id is the key
    const secondBody = { request: second, approval: approvalOf(second) };
    const posted = await rest(node(1), 'POST', 'cairn/api/a2a-tasks', { body: secondBody, token: poster.token });
    const repeated = await rest(node(0), 'POST', 'cairn/api/a2a-tasks', { body: secondBody, token: poster.token });
    expect(repeated.body.id).toBe(posted.body.id);
    const all = await rest(node(1), 'GET', 'cairn/api/a2a-tasks?mode=all&limit=1');
    expect(all.body.next_cursor).toEqual(expect.any(String));
    const crossed = await rest(
      node(0),
      'GET',
      `cairn/api/a2a-tasks?mode=open&cursor=${encodeURIComponent(all.body.next_cursor)}`,
    );
    expect(crossed.status).toBe(400);
    expect(crossed.body.error.issues[0].path).toBe('cursor');
    expect((await rest(node(0), 'GET', 'cairn/api/a2a-tasks?limit=51')).status).toBe(400);
    expect((await rest(node(0), 'GET', `cairn/api/a2a-tasks/${randomUUID()}`)).status).toBe(404);
  });

  it('open calls: listed by mode, read with their public answers, answered once per agent', async () => {
    const [a1, a2] = await Promise.all([registered('call-a1'), registered('call-a2')]);
    const opened = await rpc(
      node(0).url,
      'SendMessage',
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [
            { data: { skill: 'call.open', args: { title: 'Next paper', question: 'Which topics should it cover?' } } },
          ],
        },
      },
      { token: ADMIN, headers: { 'A2A-Version': '1.0' } },
    );
    const id = opened.body.result.task.id as string;
    const listed = await rest(node(1), 'GET', 'cairn/api/a2a-calls?mode=open&limit=10');
    expect(listed.body.calls).toContainEqual(
      expect.objectContaining({ id, title: 'Next paper', question: 'Which topics should it cover?', status: 'open' }),
    );
    const answer = {
      schema: 'cairn.call.response/0.1',
      stance: 'support',
      body: 'Cover the task lifecycle and the paging of lists first.',
      public_output_approved: true,
    };
    const answered = await rest(node(1), 'POST', `cairn/api/a2a-calls/${id}/responses`, {
      body: answer,
      token: a1.token,
    });
    expect(answered.status).toBe(201);
    expect(answered.body.response).toMatchObject({ stance: 'support', body: answer.body });
    const again = await rest(node(0), 'POST', `cairn/api/a2a-calls/${id}/responses`, { body: answer, token: a1.token });
    expect(again.body.error.code).toBe('duplicate_contribution');
    const short = await rest(node(0), 'POST', `cairn/api/a2a-calls/${id}/responses`, {
      body: { ...answer, body: 'Too short.' },
      token: a2.token,
    });
    expect(short.body.error.issues[0].path).toBe('body');
    const read = await rest(node(0), 'GET', `cairn/api/a2a-calls/${id}`);
    expect(read.body.answers).toEqual([{ id: answered.body.response.id, stance: 'support', body: answer.body }]);
    expect(JSON.stringify(read.body)).not.toContain('call-a1');
    await rest(node(0), 'POST', `api/tasks/${id}/close`, { token: ADMIN, body: {} });
    const closed = await rest(node(1), 'GET', 'cairn/api/a2a-calls?mode=closed');
    expect(closed.body.calls.map((c: any) => c.id)).toContain(id);
    expect(
      (await rest(node(1), 'GET', 'cairn/api/a2a-calls?mode=open')).body.calls.map((c: any) => c.id),
    ).not.toContain(id);
  });
});
