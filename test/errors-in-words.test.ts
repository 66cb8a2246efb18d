/**
 * Errors in people's words (issue 10): every refusal of bad input, over JSON-RPC and over REST,
 * names the field as the caller sent it, says what is allowed and what to send instead, and
 * carries no text of the validation library. Hints that say where to go instead:
 * errors-in-words-hints.test.ts; reserved handles: errors-in-words-handles.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AT_ONCE, message, wordsHub } from './helpers/errors-in-words.js';
import { rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient, sendRequest } from './helpers/sdk.js';

/** Phrases of zod's own messages: none may reach a caller. */
const BANNED = [
  /invalid input/i,
  /expected \w+, received/i,
  /unrecognized key/i,
  /invalid option/i,
  /too (small|big)/i,
  /invalid (string|union|enum|type)/i,
  /received undefined/i,
  /zod/i,
];

function expectPlainWords(answer: unknown): void {
  const text = JSON.stringify(answer);
  for (const phrase of BANNED) expect(text, `no library text: ${phrase}`).not.toMatch(phrase);
}

const served = wordsHub();
const { bobBase, aliceToBob } = served;
let hub: TestHub;
let alice: Registered;
let bob: Registered;
beforeAll(() => {
  ({ hub, alice, bob } = served.parties());
});

describe('JSON-RPC validation errors name the field under params', () => {
  const openReview = (args: Record<string, unknown>) => ({
    message: message({ parts: [{ data: { skill: 'review.open', args } }] }),
  });

  it.each([
    [
      'a missing field',
      'SendMessage',
      { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      'params.message.messageId',
      /is required/,
    ],
    [
      'a wrong type',
      'SendMessage',
      { message: message({ parts: [{ text: 5 }] }) },
      'params.message.parts[0].text',
      /must be a string, not a number/,
    ],
    [
      'a bad enum value',
      'SendMessage',
      { message: message({ role: 'user' }) },
      'params.message.role',
      /must be one of 'ROLE_USER', 'ROLE_AGENT', not 'user'/,
    ],
    [
      'a value too long',
      'SendMessage',
      { message: message({ messageId: 'm'.repeat(201) }) },
      'params.message.messageId',
      /at most 200 characters/,
    ],
    ['an empty list', 'SendMessage', { message: message({ parts: [] }) }, 'params.message.parts', /at least one part/],
    ['a number out of range', 'ListTasks', { pageSize: 1000 }, 'params.pageSize', /between 1 and 100/],
    [
      'a wrong type in a nested object',
      'SendMessage',
      { message: message(), configuration: { historyLength: 'many' } },
      'params.configuration.historyLength',
      /must be a number, not a string/,
    ],
  ])('%s', async (_what, method, params, field, says) => {
    const res = await rpc(bobBase(), method, params, { token: alice.token });
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toContain(`'${field}'`);
    expect(res.body.error.message).toMatch(says);
    const [info, badRequest] = res.body.error.data;
    expect(info.metadata.hint).toMatch(/^(Send|Add|Shorten|Remove|Fix)/);
    expect(badRequest.fieldViolations[0]).toMatchObject({ field, description: expect.stringMatching(says) });
    expectPlainWords(res.body);
  });

  it("refuses an unknown field in Muster's own skill data, naming it and listing the fields it takes", async () => {
    const res = await rpc(hub.url, 'SendMessage', openReview({ request: {}, approval: {}, budget: 5 }), {
      token: alice.token,
    });
    expect(res.body.error.code).toBe(-32602);
    const violation = res.body.error.data[1].fieldViolations[0];
    expect(violation.field).toBe('params.message.parts[0].data.args.budget');
    expect(violation.description).toMatch(/not a field here; the fields are request, approval/);
    expect(res.body.error.data[0].metadata.hint).toMatch(/Remove/);
    expectPlainWords(res.body);
  });

  it('ignores unknown fields in A2A objects (A2A 1.0 §5.7) and stores none of them', async () => {
    const params = {
      message: message({ tckUnknownField: 'x', parts: [{ text: 'hello', tckUnknownField: 1 }] }),
      configuration: AT_ONCE,
      tckUnknownField: true,
    };
    const sent = await rpc(bobBase(), 'SendMessage', params, { token: alice.token });
    expect(sent.body.result.task.id).toBeTruthy();
    const read = await rpc(
      bobBase(),
      'GetTask',
      { id: sent.body.result.task.id, tckUnknownField: 1 },
      { token: alice.token },
    );
    expect(JSON.stringify(read.body.result.history)).not.toContain('tckUnknownField');
  });

  it('says the same through the official SDK client', async () => {
    const client = await sdkClient(bobBase(), alice.token);
    const error = await client.sendMessage(sendRequest('hi', { messageId: '' })).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toContain("'params.message.messageId'");
    expect(error?.message).toMatch(/is required/);
    expectPlainWords(error?.message);
  });
});

describe('REST validation errors name the field in the body or query', () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = await aliceToBob();
  });

  const respond = (body: unknown) => rest(hub, 'POST', `api/tasks/${taskId}/respond`, { token: bob.token, body });

  it.each([
    [
      'a missing field',
      () => rest(hub, 'POST', 'api/agents', { body: { name: 'No handle' } }),
      'handle',
      /is required/,
    ],
    ['a wrong type', () => rest(hub, 'POST', 'api/agents', { body: { handle: 5 } }), 'handle', /must be a string/],
    [
      'an unknown field',
      () => rest(hub, 'POST', 'api/agents', { body: { handle: 'zed', nickname: 'z' } }),
      'nickname',
      /not a field here; the fields are handle, name, description, endpoint/,
    ],
    ['a bad enum value', () => respond({ state: 'TASK_STATE_BOGUS' }), 'state', /TASK_STATE_/],
    [
      'an empty list',
      () => respond({ state: 'TASK_STATE_WORKING', artifacts: [{ parts: [] }] }),
      'artifacts[0].parts',
      /must hold at least 1 item/,
    ],
    [
      'a value too long',
      () => respond({ state: 'TASK_STATE_WORKING', artifacts: [{ name: 'n'.repeat(201), parts: [{ text: 'x' }] }] }),
      'artifacts[0].name',
      /at most 200 characters/,
    ],
    [
      'a wrong type in a query',
      () => rest(hub, 'GET', 'api/inbox?limit=many', { token: bob.token }),
      'limit',
      /must be a number/,
    ],
    [
      'an unknown query parameter',
      () => rest(hub, 'GET', 'api/inbox?limt=5', { token: bob.token }),
      'limt',
      /not a field here; the fields are state, cursor, limit/,
    ],
  ])('%s', async (_what, call, field, says) => {
    const res = await call();
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMS');
    expect(res.body.error.message).toContain(`'${field}'`);
    expect(res.body.error.fields[0]).toMatchObject({ field, description: expect.stringMatching(says) });
    expect(res.body.error.hint).toBeTruthy();
    expect(JSON.stringify(res.body)).not.toMatch(/JSON-RPC|params\./);
    expectPlainWords(res.body);
  });

  it('ignores unknown fields inside the A2A Message of a respond body, as the A2A door does', async () => {
    const res = await respond({ state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'on it' }], colour: 'red' } });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('colour');
  });

  it('answers a body that is not JSON with advice for its own door', async () => {
    const post = (url: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"handle": ' }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      );
    const restAnswer = await post(`${hub.url}api/agents`);
    expect(restAnswer.status).toBe(400);
    expect(restAnswer.body.error.code).toBe('PARSE_ERROR');
    expect(restAnswer.body.error.hint).toMatch(/JSON object/);
    expect(JSON.stringify(restAnswer.body)).not.toMatch(/JSON-RPC|jsonrpc/i);
    const rpcAnswer = await post(bobBase());
    expect(rpcAnswer.body.error.code).toBe(-32700);
    expect(rpcAnswer.body.error.data[0].metadata.hint).toMatch(/JSON-RPC 2\.0 request object/);
  });

  it('names the REST routes, not the A2A bases, for an unknown path under /api/', async () => {
    const res = await rest(hub, 'GET', 'api/agent');
    expect(res.status).toBe(404);
    expect(res.body.error.hint).toContain('/api/agents');
    expect(res.body.error.hint).not.toMatch(/JSON-RPC/);
  });

  it('names --admin-token and MUSTER_ADMIN_TOKEN when registration needs the admin token', async () => {
    const adminHub = await startTestHub({ MUSTER_REGISTRATION: 'admin' });
    try {
      const res = await rest(adminHub, 'POST', 'api/agents', { body: { handle: 'walk-in' } });
      expect(res.status).toBe(401);
      expect(res.body.error.hint).toContain('--admin-token');
      expect(res.body.error.hint).toContain('MUSTER_ADMIN_TOKEN');
    } finally {
      await adminHub.destroy();
    }
  });
});
