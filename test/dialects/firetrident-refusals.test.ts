/**
 * FireTrident's refusals and REST routes at /api/colonies/{colony}/, from its seed page: writes
 * without a token (or with a dead one) are HTTP 401 with -32000 and a sentence saying writes need
 * a token and reads none, a token the colony's rules refuse is 403 with -32000, a message that
 * makes no intent says what to send instead, a version other than 0.3 and 1.0 is -32009, a colony
 * that does not exist is 404 on both routes. The 0.3 names answer in 0.3 shapes. The REST routes declare, read, withdraw and tell why
 * a path changed. What the colony shows equals what the space's native base shows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../helpers/database.js';
import { rest, rpc } from '../helpers/hub.js';
import {
  a2a,
  ADMIN_TOKEN,
  COLONY,
  colonyCluster,
  declaration,
  getTask,
  landNatively,
  makeColony,
  type Colony,
} from './firetrident-helpers.js';

const SEED_DECLARATION = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"Add rate limiting to /api/links\\nAnonymous callers can flood the links endpoints; cap them at 60 requests a minute."},{"data":{"footprint":["src/links/**"],"acceptance":["a 61st request in a minute gets 429"]}}]},"configuration":{"returnImmediately":true}}}`;
const TOKEN_RULE = /need a Muster agent token.*GetTask and ListTasks need none/;

describe(`FireTrident refusals and REST routes (${testDialect === 'postgres' ? 'two nodes on PostgreSQL' : 'one node on SQLite'})`, () => {
  const { node } = colonyCluster('dialect_firetrident_refusals');
  let colony: Colony;

  beforeAll(async () => {
    colony = await makeColony(node(0));
  });

  it('SendMessage and CancelTask without a token, or with a dead one, are HTTP 401 with -32000, saying writes need a token and reads none', async () => {
    const cancel =
      '{"jsonrpc":"2.0","id":4,"method":"CancelTask","params":{"id":"x","metadata":{"reason":"the plan changed"}}}';
    for (const [body, token] of [
      [SEED_DECLARATION, undefined],
      [SEED_DECLARATION, 'not-a-token'],
      [cancel, undefined],
    ] as const) {
      const res = await a2a(node(1), body, token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe(-32000);
      expect(res.body.error.message).toMatch(TOKEN_RULE);
    }
    // Nothing was declared.
    const listed = await a2a(node(0), '{"jsonrpc":"2.0","id":3,"method":"ListTasks","params":{}}');
    expect(listed.body.result.totalSize).toBe(0);
  });

  it("a token the colony's rules do not let declare is HTTP 403 with -32000, saying what writes need", async () => {
    const res = await a2a(node(0), declaration('Outsider work', { footprint: ['x/**'] }), colony.outsider.token);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe(-32000);
    expect(res.body.error.message).toContain('orchestrators');
    expect(res.body.error.message).toMatch(TOKEN_RULE);
  });

  it('a message that makes no intent is refused with a sentence saying what to send instead', async () => {
    const send = (message: Record<string, unknown>) =>
      a2a(
        node(1),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: `r-${Math.random()}`, role: 'ROLE_USER', ...message },
            configuration: { returnImmediately: true },
          },
        }),
        colony.planner.token,
      );
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ parts: [{ data: { footprint: ['a/**'] } }] }, /text part/],
      [{ parts: [{ text: 'No footprint' }] }, /footprint/],
      [
        { parts: [{ text: 'With a file' }, { url: 'https://example.com/a.txt', mediaType: 'text/plain' }] },
        /text and JSON data parts only/,
      ],
      [
        { contextId: 'another', parts: [{ text: 'Elsewhere' }, { data: { footprint: ['a/**'] } }] },
        /contextId "links"/,
      ],
      [
        { taskId: 'some-task', parts: [{ text: 'More' }, { data: { footprint: ['a/**'] } }] },
        /no follow-up messages.*CancelTask.*GetTask/,
      ],
    ];
    for (const [message, says] of cases) {
      const res = await send(message);
      expect(res.body.error, JSON.stringify(message)).toBeDefined();
      expect(res.body.error.code).toBe(-32602);
      expect(res.body.error.message).toMatch(says);
    }
    // In 0.3 shapes, a file part is named where the 0.3 client put it.
    const legacy = await a2a(
      node(0),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'f-03',
            role: 'user',
            parts: [
              { kind: 'text', text: 'x' },
              { kind: 'file', file: { uri: 'https://example.com/a', mimeType: 'text/plain' } },
            ],
          },
        },
      }),
      colony.planner.token,
    );
    expect(legacy.body.error.code).toBe(-32602);
    expect(legacy.body.error.message).toMatch(/text and JSON data parts only/);
    // ListTasks takes only the colony's contextId.
    const foreign = await a2a(
      node(1),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ListTasks', params: { contextId: 'other' } }),
    );
    expect(foreign.body.error.code).toBe(-32602);
    expect(foreign.body.error.message).toContain(`contextId is "${COLONY}"`);
  });

  it('an A2A-Version other than 0.3 and 1.0 is -32009; 1.0 and none are taken; an unknown method names the ones there are', async () => {
    const refused = await a2a(node(0), getTask('x'), undefined, COLONY, { 'A2A-Version': '2.0' });
    expect(refused.body.error.code).toBe(-32009);
    const taken = await a2a(node(1), '{"jsonrpc":"2.0","id":3,"method":"ListTasks","params":{}}', undefined, COLONY, {
      'A2A-Version': '1.0',
    });
    expect(taken.body.result.tasks).toEqual([]);
    const unknown = await a2a(node(0), '{"jsonrpc":"2.0","id":3,"method":"SendStreamingMessage","params":{}}');
    expect(unknown.body.error.code).toBe(-32601);
    expect(unknown.body.error.data[0].metadata.hint).toContain('poll GetTask');
  });

  it('a colony that does not exist answers 404 on the card and on the JSON-RPC route', async () => {
    const card = await fetch(`${node(1).url}api/colonies/nowhere/.well-known/agent-card.json`);
    expect(card.status).toBe(404);
    const res = await a2a(node(0), getTask('x'), undefined, 'nowhere');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('colony');
    const other = await fetch(`${node(0).url}api/colonies/${COLONY}/no-such-route`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as any).error.hint).toContain('why?path=');
  });

  it('the REST routes: declare, read, withdraw, and why?path= for the colony and natively for the space', async () => {
    const colonyRest = (path: string) => `api/colonies/${COLONY}/${path}`;
    const noToken = await rest(node(0), 'POST', colonyRest('intents'), { body: { title: 'x', footprint: ['x'] } });
    expect(noToken.status).toBe(401);
    const made = await rest(node(0), 'POST', colonyRest('intents'), {
      token: colony.planner.token,
      body: {
        title: 'Index the link table',
        why: 'Lookups scan it.',
        footprint: ['db/links.sql'],
        acceptance: ['a plan with an index scan'],
      },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      colony: COLONY,
      status: 'open',
      state: 'TASK_STATE_SUBMITTED',
      title: 'Index the link table',
      why: 'Lookups scan it.',
      footprint: ['db/links.sql'],
      acceptance: ['a plan with an index scan'],
      createdBy: colony.planner.handle,
    });
    const id = made.body.id;
    expect(made.body.url).toBe(`${node(0).url}${colonyRest(`intents/${id}`)}`);
    const read = await fetch(made.body.url.replace(node(0).url, node(1).url));
    expect(read.status).toBe(200);
    expect(((await read.json()) as any).id).toBe(id);
    const twin = await rest(node(1), 'POST', colonyRest('intents'), {
      token: colony.planner.token,
      body: { title: 'index the link-table', footprint: ['db/links.sql'] },
    });
    expect(twin.status).toBe(200);
    expect(twin.body.duplicateOf).toBe(id);

    await landNatively(node(1), id, colony.workers[0]!, {
      summary: 'Added the index.',
      commit: 'abc1234',
      files: [{ path: 'db/links.sql', why: 'the index' }],
    });
    const landed = (await rest(node(0), 'GET', colonyRest(`intents/${id}`))).body;
    expect(landed.status).toBe('landed');
    expect(landed.landing).toMatchObject({
      landing: id,
      commit: 'abc1234',
      files: [{ path: 'db/links.sql', note: 'the index' }],
    });
    const why = await rest(node(1), 'GET', colonyRest('why?path=db/links.sql'));
    expect(why.status).toBe(200);
    expect(why.body.intents).toEqual([
      expect.objectContaining({
        intent: id,
        title: 'Index the link table',
        why: 'Lookups scan it.',
        note: 'the index',
        commit: 'abc1234',
      }),
    ]);
    // A second landing of the same path comes first.
    const next = await rest(node(0), 'POST', colonyRest('intents'), {
      token: colony.planner.token,
      body: { title: 'Drop the old index', footprint: ['db/links.sql'] },
    });
    await landNatively(node(0), next.body.id, colony.workers[1]!, {
      summary: 'Dropped it.',
      files: [{ path: 'db/links.sql' }],
    });
    const both = await rest(node(0), 'GET', colonyRest('why?path=db%2Flinks.sql'));
    expect(both.body.intents.map((i: any) => i.intent)).toEqual([next.body.id, id]);
    const native = await rest(node(1), 'GET', `api/spaces/${COLONY}/why?path=db/links.sql&limit=1`);
    expect(native.body.data.map((t: any) => t.id)).toEqual([next.body.id]);
    expect(native.body.hasMore).toBe(true);
    expect((await rest(node(1), 'GET', `api/spaces/${COLONY}/why`)).status).toBe(400);
    expect((await rest(node(1), 'GET', 'api/spaces/nowhere/why?path=a')).status).toBe(404);

    const withdrawable = await rest(node(1), 'POST', colonyRest('intents'), {
      token: colony.planner.token,
      body: { title: 'Withdraw me', footprint: ['w/**'] },
    });
    const withdrawn = await rest(node(0), 'POST', colonyRest(`intents/${withdrawable.body.id}/withdraw`), {
      token: colony.planner.token,
      body: { reason: 'not needed' },
    });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({ status: 'withdrawn', withdrawReason: 'not needed' });
    const late = await rest(node(1), 'POST', colonyRest(`intents/${id}/withdraw`), {
      token: colony.planner.token,
      body: {},
    });
    expect(late.status).toBe(409);
  });

  it("what the colony shows equals the space's native view: the same tasks, the same states, nothing of other spaces or kinds", async () => {
    const other = await makeColony(node(1), 'elsewhere', colony);
    const foreign = (
      await a2a(node(0), declaration('Foreign work', { footprint: ['f/**'] }), other.planner.token, 'elsewhere')
    ).body.result.task;
    const direct = await rpc(
      `${node(0).url}agents/${colony.workers[0]!.handle}/`,
      'SendMessage',
      {
        message: { messageId: 'direct-1', role: 'ROLE_USER', parts: [{ text: 'a direct task' }] },
        configuration: { returnImmediately: true },
      },
      { token: colony.planner.token },
    );
    const directId = direct.body.result.task.id;
    const native = (
      await rpc(
        `${node(1).url}spaces/${COLONY}/`,
        'ListTasks',
        { pageSize: 100, includeArtifacts: true },
        { headers: { 'A2A-Version': '1.0' } },
      )
    ).body.result;
    const dialect = (
      await a2a(
        node(0),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'ListTasks',
          params: { pageSize: 100, includeArtifacts: true },
        }),
      )
    ).body.result;
    expect(dialect.tasks.map((t: any) => [t.id, t.status.state])).toEqual(
      native.tasks.map((t: any) => [t.id, t.status.state]),
    );
    expect(dialect.totalSize).toBe(native.totalSize);
    for (const [i, task] of dialect.tasks.entries()) {
      expect(task.metadata.muster).toEqual(native.tasks[i].metadata.muster);
      expect(task.history).toEqual(native.tasks[i].history);
      const one = (await a2a(node(i), getTask(task.id))).body.result;
      expect(one.metadata.muster).toEqual(native.tasks[i].metadata.muster);
    }
    expect(dialect.tasks.map((t: any) => t.id)).not.toContain(foreign.id);
    for (const id of [foreign.id, directId]) {
      const res = await a2a(node(1), getTask(id));
      expect(res.body.error.code).toBe(-32001);
    }
    // The admin's token reads the same, and declares too.
    const byAdmin = await a2a(node(0), declaration('Admin work', { footprint: ['admin/**'] }), ADMIN_TOKEN);
    expect(byAdmin.body.result.task.metadata.firetrident).toMatchObject({ source: 'admin', createdBy: 'admin' });
  });

  it('answers the 0.3 names in 0.3 shapes: message/send (waiting only when blocking), tasks/get, tasks/cancel', async () => {
    const send = JSON.stringify({
      jsonrpc: '2.0',
      id: 11,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'legacy-1',
          role: 'user',
          parts: [
            { kind: 'text', text: 'Legacy intent\nfrom an older client' },
            { kind: 'data', data: { footprint: ['legacy/**'] } },
          ],
        },
      },
    });
    const started = Date.now();
    const sent = await a2a(node(1), send, colony.planner.token);
    expect(Date.now() - started).toBeLessThan(2_500); // 0.3 does not wait unless asked to
    const task = sent.body.result;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('submitted');
    expect(task.status.message.kind).toBe('message');
    expect(task.status.message.role).toBe('agent');
    expect(task.status.message.parts[0]).toMatchObject({ kind: 'text' });
    expect(task.metadata.firetrident.title).toBe('Legacy intent');
    const got = (
      await a2a(node(0), JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'tasks/get', params: { id: task.id } }))
    ).body.result;
    expect(got).toMatchObject({ kind: 'task', id: task.id, status: { state: 'submitted' } });
    const canceled = (
      await a2a(
        node(1),
        JSON.stringify({ jsonrpc: '2.0', id: 13, method: 'tasks/cancel', params: { id: task.id } }),
        colony.planner.token,
      )
    ).body.result;
    expect(canceled).toMatchObject({ kind: 'task', id: task.id, status: { state: 'canceled' } });
    // blocking: true waits, for the wait.
    const blocking = JSON.stringify({
      jsonrpc: '2.0',
      id: 14,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'legacy-2',
          role: 'user',
          parts: [
            { kind: 'text', text: 'Legacy blocking' },
            { kind: 'data', data: { footprint: ['legacy2/**'] } },
          ],
        },
        configuration: { blocking: true },
      },
    });
    const waitedFrom = Date.now();
    const waited = (await a2a(node(0), blocking, colony.planner.token)).body.result;
    expect(Date.now() - waitedFrom).toBeGreaterThanOrEqual(2_900);
    expect(waited.status.state).toBe('submitted');
  });
});
