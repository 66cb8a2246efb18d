/**
 * Vorn's REST routes, as its OpenAPI document describes them, over raw HTTP: the inbox and sent
 * pages (query, item and page shapes, cursor paging, the operator's read-only view by agent_id,
 * 400 and 403), one task (sender, target or an operator of either; 404 otherwise) and respond
 * (target only, 0.3 file parts, compare-and-set: 409 INVALID_TRANSITION with the current state).
 * Cross-door: a Vorn respond is what a native SDK sender reads, and what a caller sees through
 * Vorn equals the native view. On SQLite, and on two PostgreSQL nodes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GetTaskRequest, Task } from '@a2a-js/sdk';
import { testDialect } from '../helpers/database.js';
import { rest } from '../helpers/hub.js';
import { sdkClient } from '../helpers/sdk.js';
import { agent, operator, task, vornNodes, type Agent } from './vorn-fixture.js';

const JOB = '6b0c7a35-1f64-4e1e-b6a1-7d0e3c2b1a09';

describe(`Vorn REST at /v1/a2a (${testDialect})`, () => {
  // Rate limits off: the pages fill one inbox from one sender faster than 30 tasks a minute (the RPC suite tests the limit).
  const { node } = vornNodes('dialect_vorn_rest', { MUSTER_RATE_LIMITS: 'off' });
  let olga: { handle: string; token: string };
  let otto: { handle: string; token: string };
  let ada: Agent, bo: Agent, cy: Agent;

  beforeAll(async () => {
    olga = await operator(node(0), 'olga');
    otto = await operator(node(1), 'otto');
    ada = await agent(node(0), 'ada', olga.token, { name: 'Ada' });
    bo = await agent(node(1), 'bo');
    cy = await agent(node(0), 'cy');
  });

  const get = (i: number, path: string, token?: string) => rest(node(i), 'GET', path, token ? { token } : {});
  const respond = (i: number, id: string, token: string, body: unknown) =>
    rest(node(i), 'POST', `v1/a2a/tasks/${id}/respond`, { token, body });

  it('pages the inbox with an opaque cursor until has_more is false, in Vorn item shape', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 23; i++)
      ids.push(await task(node(i), ada, 'bo', `job ${i}`, i === 0 ? { 'vorn.job_id': JOB } : undefined));
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await get(pages, `v1/a2a/inbox?limit=10${cursor ? `&cursor=${cursor}` : ''}`, bo.token);
      expect(page.status).toBe(200);
      expect(page.body.has_more).toBe(page.body.cursor !== null);
      seen.push(...page.body.data);
      cursor = page.body.cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((t) => t.id).sort()).toEqual([...ids].sort());
    const first = seen.find((t) => t.id === ids[0]);
    expect(first).toEqual({
      id: ids[0],
      context_id: expect.any(String),
      state: 'submitted',
      sender_id: ada.id,
      target_id: bo.id,
      job_id: JOB,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      artifact_count: 0,
      counterparty: { id: ada.id, handle: 'ada', display_name: 'Ada', avatar_url: null, account_type: 'agent' },
      last_message: expect.objectContaining({
        kind: 'message',
        role: 'user',
        parts: [{ kind: 'text', text: 'job 0' }],
      }),
    });
    expect(seen.find((t) => t.id === ids[1]).job_id).toBeNull();

    // The sender's list, by the other node: the counterparty is the target.
    const sent = await get(1, 'v1/a2a/sent?limit=50', ada.token);
    expect(sent.body.data.map((t: any) => t.id).sort()).toEqual([...ids].sort());
    expect(sent.body.data[0].counterparty).toMatchObject({ id: bo.id, handle: 'bo', display_name: 'bo' });
    expect(sent.body).toMatchObject({ cursor: null, has_more: false });
  });

  it('filters by state (open by default), and refuses a bad state, limit or cursor with 400 VALIDATION_ERROR', async () => {
    const id = await task(node(0), ada, 'cy');
    const done = await task(node(1), ada, 'cy');
    await respond(0, done, cy.token, { state: 'completed' });
    const open = await get(1, 'v1/a2a/inbox', cy.token);
    expect(open.body.data.map((t: any) => t.id)).toEqual([id]);
    const completed = await get(0, 'v1/a2a/inbox?state=completed', cy.token);
    expect(completed.body.data.map((t: any) => [t.id, t.state])).toEqual([[done, 'completed']]);
    expect((await get(1, 'v1/a2a/inbox?state=all', cy.token)).body.data).toHaveLength(2);

    for (const query of ['state=done', 'limit=0', 'limit=51', 'limit=two', 'cursor=not-a-cursor']) {
      const bad = await get(0, `v1/a2a/inbox?${query}`, cy.token);
      expect([bad.status, bad.body.code, bad.body.status]).toEqual([400, 'VALIDATION_ERROR', 400]);
      expect(bad.body.error).toEqual(expect.any(String));
    }
    // A cursor is bound to its filter.
    for (let i = 0; i < 3; i++) await task(node(i), bo, 'cy');
    const page = await get(0, 'v1/a2a/inbox?state=all&limit=1', cy.token);
    const other = await get(1, `v1/a2a/inbox?state=open&limit=1&cursor=${page.body.cursor}`, cy.token);
    expect([other.status, other.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await get(0, 'v1/a2a/inbox')).status).toBe(401);
  });

  it("lets an operator read its agent's lists by agent_id (400 without it, 403 for another's)", async () => {
    const id = await task(node(1), ada, 'bo');
    const own = await get(0, `v1/a2a/sent?agent_id=${ada.id}&state=all&limit=50`, olga.token);
    expect(own.status).toBe(200);
    expect(own.body.data.map((t: any) => t.id)).toContain(id);
    const without = await get(1, 'v1/a2a/inbox', olga.token);
    expect([without.status, without.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const other = await get(0, `v1/a2a/inbox?agent_id=${ada.id}`, otto.token);
    expect([other.status, other.body.code]).toEqual([403, 'FORBIDDEN']);
    const notOperated = await get(1, `v1/a2a/inbox?agent_id=${bo.id}`, olga.token);
    expect(notOperated.status).toBe(403);
    const unknown = await get(0, `v1/a2a/inbox?agent_id=${crypto.randomUUID()}`, olga.token);
    expect(unknown.status).toBe(403);
    // An agent naming another agent is refused too.
    expect((await get(1, `v1/a2a/inbox?agent_id=${ada.id}`, bo.token)).status).toBe(403);
  });

  it('shows one task to its sender, target and their operator; 404 to anyone else', async () => {
    const id = await task(node(0), ada, 'bo', 'read me', { 'vorn.job_id': JOB });
    for (const [i, token] of [
      [0, ada.token],
      [1, bo.token],
      [0, olga.token],
    ] as const) {
      const read = await get(i, `v1/a2a/tasks/${id}`, token);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        kind: 'task',
        id,
        status: { state: 'submitted' },
        metadata: { 'vorn.job_id': JOB },
      });
      expect(read.body.history).toHaveLength(1);
    }
    for (const token of [cy.token, otto.token]) {
      const hidden = await get(1, `v1/a2a/tasks/${id}`, token);
      expect([hidden.status, hidden.body.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect((await get(0, `v1/a2a/tasks/${crypto.randomUUID()}`, ada.token)).status).toBe(404);
    expect((await get(0, `v1/a2a/tasks/${id}`)).status).toBe(401);
  });

  it('respond: the target answers with 0.3 parts and artifacts; anyone else is refused', async () => {
    const id = await task(node(0), ada, 'bo');
    const working = await respond(1, id, bo.token, {
      state: 'working',
      message: { parts: [{ kind: 'text', text: 'on it' }] },
    });
    expect(working.status).toBe(200);
    expect(working.body.status).toMatchObject({
      state: 'working',
      message: { role: 'agent', parts: [{ kind: 'text', text: 'on it' }] },
    });
    const file = {
      kind: 'file',
      file: { uri: 'https://files.example/report.pdf', name: 'report.pdf', mimeType: 'text/plain' },
    };
    const done = await respond(0, id, bo.token, {
      state: 'completed',
      message: { parts: [file] },
      artifacts: [{ name: 'Report', parts: [file, { kind: 'data', data: { pages: 3 } }] }],
    });
    expect(done.status).toBe(200);
    expect(done.body.status.state).toBe('completed');
    expect(done.body.artifacts[0]).toMatchObject({
      name: 'Report',
      parts: [file, { kind: 'data', data: { pages: 3 } }],
    });

    const other = await task(node(1), ada, 'bo');
    for (const token of [ada.token, olga.token]) {
      const refused = await respond(0, other, token, { state: 'completed' });
      expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    }
    expect((await respond(1, other, cy.token, { state: 'completed' })).status).toBe(404);
    for (const body of [
      {},
      { state: 'canceled' },
      { state: 'completed', message: { parts: [{ kind: 'file', file: { bytes: 'aGk=' } }] } },
      { state: 'completed', message: { parts: Array.from({ length: 11 }, () => ({ kind: 'text', text: 'x' })) } },
      { state: 'completed', message: { parts: [{ kind: 'image', url: 'x' }] } },
    ]) {
      const bad = await respond(0, other, bo.token, body);
      expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect((await get(1, `v1/a2a/tasks/${other}`, bo.token)).body.status.state).toBe('submitted');
  });

  it('respond is compare-and-set: a move the state no longer allows is 409 INVALID_TRANSITION with the current state', async () => {
    const id = await task(node(0), ada, 'bo');
    // The sender cancels it through the native REST door; the target's answer comes too late.
    expect((await rest(node(1), 'POST', `api/tasks/${id}/cancel`, { token: ada.token })).status).toBe(200);
    const late = await respond(0, id, bo.token, { state: 'completed' });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'INVALID_TRANSITION', status: 409, current_state: 'canceled' });

    // Two answers raced through both nodes: one ends the task, the other finds it ended.
    const raced = await task(node(1), ada, 'bo');
    const answers = await Promise.all([
      respond(0, raced, bo.token, { state: 'completed' }),
      respond(1, raced, bo.token, { state: 'failed' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const lost = answers.find((a) => a.status === 409)!;
    const won = answers.find((a) => a.status === 200)!;
    expect(lost.body.current_state).toBe(won.body.status.state);
  });

  it('cross-door: a Vorn respond is what the native SDK sender reads, and Vorn shows what the native view shows', async () => {
    const id = await task(node(0), ada, 'bo', 'through both doors');
    await respond(1, id, bo.token, {
      state: 'completed',
      message: { parts: [{ kind: 'file', file: { uri: 'https://files.example/answer.txt', name: 'answer.txt' } }] },
    });
    const client = await sdkClient(`${node(0).url}agents/bo/`, ada.token);
    const seen = Task.toJSON(await client.getTask(GetTaskRequest.fromJSON({ id }))) as any;
    expect(seen.status.state).toBe('TASK_STATE_COMPLETED');
    expect(seen.status.message.parts).toEqual([{ url: 'https://files.example/answer.txt', filename: 'answer.txt' }]);
    // A third agent sees nothing of it, natively or through Vorn.
    const outsider = await sdkClient(`${node(1).url}agents/bo/`, cy.token);
    await expect(outsider.getTask(GetTaskRequest.fromJSON({ id }))).rejects.toThrow();
    expect((await get(0, `v1/a2a/tasks/${id}`, cy.token)).status).toBe(404);
    // The same tasks in both lists, for the target and for the operator.
    const ids = (body: any) => body.data.map((t: any) => t.id).sort();
    for (const [token, query] of [
      [bo.token, ''],
      [olga.token, `agent_id=${ada.id}`],
    ] as const) {
      const box = query ? 'sent' : 'inbox';
      const vorn = await get(0, `v1/a2a/${box}?state=all&limit=50&${query}`, token);
      const native = await get(1, `api/${box}?state=all&limit=50${query ? '&agent=ada' : ''}`, token);
      expect(ids(vorn.body)).toEqual(ids(native.body));
    }
  });
});
