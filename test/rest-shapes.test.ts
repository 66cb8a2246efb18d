/**
 * The shapes REST bodies take: parts in the 1.0 shape and in the 0.3 shape (a part mixing them is
 * refused, naming the field), and a `message` that is a string or a Message object on every
 * action that has one (respond, progress, input-required). A real hub on 127.0.0.1, on SQLite or
 * PostgreSQL (MUSTER_TEST_PG).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let alice: Registered, bob: Registered, owner: Registered, orch: Registered, worker: Registered;

beforeAll(async () => {
  hub = await startTestHub();
  [alice, bob, owner, orch, worker] = await registerAll(hub, 'alice', 'bob', 'owner', 'orch', 'worker');
  expect(
    (await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'shapes', claim: 'open' } })).status,
  ).toBe(201);
  await rest(hub, 'PUT', `api/spaces/shapes/members/${orch.handle}`, {
    token: owner.token,
    body: { role: 'orchestrator' },
  });
});
afterAll(() => hub.destroy());

const act = (id: string, action: string, token: string, body: unknown) =>
  rest(hub, 'POST', `api/tasks/${id}/${action}`, { token, body });
const getTask = async (id: string) => (await rest(hub, 'GET', `api/tasks/${id}`, { token: alice.token })).body;
const newTask = async () =>
  (
    await rpc(
      `${hub.url}agents/bob/`,
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token },
    )
  ).body.result.task.id as string;
const claimedIntent = async () => {
  const declared = await rpc(
    `${hub.url}spaces/shapes/`,
    'SendMessage',
    {
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text: `Work ${randomUUID()}` }, { data: { footprint: [`src/${randomUUID()}/**`] } }],
      },
      configuration: { returnImmediately: true },
    },
    { token: orch.token },
  );
  const id = declared.body.result.task.id as string;
  expect((await act(id, 'claim', worker.token, {})).status).toBe(200);
  return id;
};

describe('parts in the 1.0 and the 0.3 shape', () => {
  it('respond takes 0.3 text, data and file parts beside 1.0 ones, and stores them as 1.0 parts', async () => {
    const id = await newTask();
    const res = await act(id, 'respond', bob.token, {
      state: 'TASK_STATE_COMPLETED',
      message: { parts: [{ kind: 'text', text: 'done' }, { text: 'also done' }] },
      artifacts: [
        {
          artifactId: 'a',
          parts: [
            { kind: 'data', data: { n: 1 } },
            { kind: 'file', file: { uri: 'https://example.com/r.pdf', name: 'r.pdf', mimeType: 'application/pdf' } },
            { kind: 'file', file: { bytes: 'aGk=', name: 'hi.txt' } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const task = await getTask(id);
    expect(task.status.message.parts).toEqual([{ text: 'done' }, { text: 'also done' }]);
    expect(task.artifacts[0].parts).toEqual([
      { data: { n: 1 } },
      { url: 'https://example.com/r.pdf', filename: 'r.pdf', mediaType: 'application/pdf' },
      { raw: 'aGk=', filename: 'hi.txt' },
    ]);
  });

  it('leaves a data part\'s own "parts" and "kind" alone', async () => {
    const id = await newTask();
    const data = { kind: 'file', parts: [{ kind: 'text', url: 'not a part' }] };
    expect(
      (
        await act(id, 'respond', bob.token, {
          state: 'TASK_STATE_COMPLETED',
          artifacts: [{ artifactId: 'd', parts: [{ data }] }],
        })
      ).status,
    ).toBe(200);
    expect((await getTask(id)).artifacts[0].parts).toEqual([{ data }]);
  });

  it.each([
    [
      'a 0.3 file part with a 1.0 url',
      { message: { parts: [{ kind: 'file', url: 'https://example.com/a' }] } },
      'message.parts[0].url',
      '{"kind": "file", "file": {"uri"|"bytes", "name", "mimeType"}}',
    ],
    [
      'a data part with text',
      { artifacts: [{ artifactId: 'x', parts: [{ text: 'x', kind: 'data' }] }] },
      'artifacts[0].parts[0].text',
      '{"kind": "data", "data": {…}}',
    ],
    [
      'a 0.3 file holding 1.0 fields',
      { message: { parts: [{ kind: 'file', file: { url: 'https://example.com/a' } }] } },
      'message.parts[0].file.url',
      '{"url"|"raw", "filename", "mediaType"}',
    ],
    [
      'a 0.3 file field without kind',
      { message: { parts: [{ file: { uri: 'https://example.com/a' } }] } },
      'message.parts[0].file',
      'without kind',
    ],
    [
      'an unknown kind',
      { message: { parts: [{ kind: 'image', text: 'x' }] } },
      'message.parts[0].kind',
      'without kind',
    ],
  ])('refuses %s with 400 naming the field, and changes nothing', async (_, body, field, hint) => {
    const id = await newTask();
    const res = await act(id, 'respond', bob.token, { state: 'TASK_STATE_COMPLETED', ...body });
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual([{ field, description: expect.any(String) }]);
    expect(res.body.error.hint).toContain(hint);
    expect((await getTask(id)).status.state).toBe('TASK_STATE_SUBMITTED');
  });

  it('a retry with the same Idempotency-Key may send the same parts in the other shape: it is the same request, applied once', async () => {
    const id = await newTask();
    const headers = { 'idempotency-key': `shapes-${id}` };
    const as10 = { state: 'TASK_STATE_WORKING', message: { messageId: 'm-1', parts: [{ text: 'on it' }] } };
    const as03 = {
      state: 'TASK_STATE_WORKING',
      message: { messageId: 'm-1', parts: [{ kind: 'text', text: 'on it' }] },
    };
    expect((await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: as10, headers })).status).toBe(
      200,
    );
    const again = await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: as03, headers });
    expect(again.status).toBe(200);
    expect(again.body.history).toHaveLength(2);
  });

  it('an action without a token is a 401 before its body is read', async () => {
    const id = await newTask();
    const res = await rest(hub, 'POST', `api/tasks/${id}/respond`, {
      body: { message: { parts: [{ kind: 'file', url: 'x' }] } },
    });
    expect(res.status).toBe(401);
  });
});

describe('message: a string or a Message object', () => {
  it('respond takes a string message and a string reply', async () => {
    const id = await newTask();
    expect((await act(id, 'respond', bob.token, { state: 'TASK_STATE_WORKING', message: 'on it' })).status).toBe(200);
    expect((await getTask(id)).status.message.parts).toEqual([{ text: 'on it' }]);
    const other = await newTask();
    const replied = await act(other, 'respond', bob.token, { reply: 'here you are' });
    expect(replied.status).toBe(200);
    expect(replied.body.status).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      message: { role: 'ROLE_AGENT', parts: [{ text: 'here you are' }] },
    });
  });

  it('progress and input-required take a Message object (with 0.3 parts) as well as a string', async () => {
    const id = await claimedIntent();
    expect((await act(id, 'progress', worker.token, { message: 'half way' })).status).toBe(200);
    const progressed = await act(id, 'progress', worker.token, {
      message: {
        messageId: 'p-2',
        parts: [
          { kind: 'text', text: 'three quarters' },
          { kind: 'data', data: { done: 3, of: 4 } },
        ],
      },
    });
    expect(progressed.status).toBe(200);
    const history = (await rest(hub, 'GET', `api/tasks/${id}`, { token: worker.token })).body.history;
    expect(history.slice(-2).map((m: any) => m.parts)).toEqual([
      [{ text: 'half way' }],
      [{ text: 'three quarters' }, { data: { done: 3, of: 4 } }],
    ]);
    expect(history.at(-1)).toMatchObject({ messageId: 'p-2', role: 'ROLE_AGENT' });
    const asked = await act(id, 'input-required', worker.token, { message: { parts: [{ text: 'Which cache?' }] } });
    expect(asked.status).toBe(200);
    expect(asked.body.status).toMatchObject({
      state: 'TASK_STATE_INPUT_REQUIRED',
      message: { parts: [{ text: 'Which cache?' }] },
    });
  });

  it.each([
    ['a blank string', '  ', 'must not be empty'],
    ['a number', 5, 'must be text, or a message'],
    ['a message without parts', { parts: [] }, 'must hold at least one part'],
  ])('refuses %s as a message, naming it', async (_, message, description) => {
    const id = await claimedIntent();
    const res = await act(id, 'progress', worker.token, { message });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[0].field).toMatch(/^message/);
    expect(res.body.error.fields[0].description).toContain(description);
  });
});
