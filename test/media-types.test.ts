/**
 * Each agent's input and output modes (its profile; its card's defaultInputModes and
 * defaultOutputModes), and -32005 ContentTypeNotSupportedError for a part outside the target's
 * input modes, with nothing stored. On SQLite, or PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest } from '@a2a-js/sdk';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient } from './helpers/sdk.js';

let hub: TestHub;
let alice: Registered;
let carol: Registered;
let dave: Registered;
const base = (handle: string) => `${hub.url}agents/${handle}/`;

beforeAll(async () => {
  hub = await startTestHub();
  alice = await register(hub, 'alice');
  await register(hub, 'bob', { inputModes: ['text/plain', 'IMAGE/*'], outputModes: ['text/markdown'] });
  carol = await register(hub, 'carol');
  dave = await register(hub, 'dave');
});
afterAll(() => hub.destroy());

const PNG = { raw: Buffer.from('not really a png').toString('base64'), mediaType: 'image/png', filename: 'pic.png' };
const send = (handle: string, parts: object[], extra: { messageId?: string; taskId?: string } = {}) =>
  rpc(
    base(handle),
    'SendMessage',
    {
      message: {
        messageId: extra.messageId ?? randomUUID(),
        role: 'ROLE_USER',
        parts,
        ...(extra.taskId ? { taskId: extra.taskId } : {}),
      },
      configuration: { returnImmediately: true },
    },
    { token: alice.token },
  );
const tasksAt = async (handle: string) =>
  (await rpc(base(handle), 'ListTasks', {}, { token: alice.token })).body.result.tasks.length;

describe('declared modes', () => {
  it('are set at registration and shown in the profile and the card; the defaults are text/plain and application/json', async () => {
    const profile = (await rest(hub, 'GET', 'api/agents/bob')).body;
    expect([profile.inputModes, profile.outputModes]).toEqual([['text/plain', 'image/*'], ['text/markdown']]);
    const card = (await rest(hub, 'GET', 'agents/bob/.well-known/agent-card.json')).body;
    expect([card.defaultInputModes, card.defaultOutputModes]).toEqual([['text/plain', 'image/*'], ['text/markdown']]);
    const carol = (await rest(hub, 'GET', 'agents/carol/.well-known/agent-card.json')).body;
    expect(carol.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect((await rest(hub, 'GET', 'api/agents/carol')).body.outputModes).toEqual(['text/plain', 'application/json']);
  });

  it('are changed by a profile update (null: back to the defaults), and a malformed one is refused naming it', async () => {
    const set = await rest(hub, 'PATCH', 'api/agents/dave', { token: dave.token, body: { inputModes: ['*/*'] } });
    expect([set.status, set.body.inputModes]).toEqual([200, ['*/*']]);
    const bad = await rest(hub, 'PATCH', 'api/agents/dave', { token: dave.token, body: { outputModes: ['text'] } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain('outputModes');
    const reset = await rest(hub, 'PATCH', 'api/agents/dave', { token: dave.token, body: { outputModes: null } });
    expect(reset.body.outputModes).toEqual(['text/plain', 'application/json']);
  });
});

describe('-32005 ContentTypeNotSupportedError', () => {
  it('the SDK client gets it for a file part the target does not take, and nothing is stored', async () => {
    const asAlice = await sdkClient(base('carol'), alice.token);
    const messageId = randomUUID();
    const request = SendMessageRequest.fromJSON({
      message: { messageId, role: 'ROLE_USER', parts: [{ text: 'look' }, PNG] },
      configuration: { returnImmediately: true },
    });
    await expect(asAlice.sendMessage(request)).rejects.toMatchObject({ name: 'ContentTypeNotSupportedError' });
    expect(await tasksAt('carol')).toBe(0);
    expect((await rest(hub, 'GET', 'api/inbox', { token: carol.token })).body.data).toEqual([]);
    // No receipt was kept: the same messageId, with parts carol takes, opens the task.
    const ok = await send('carol', [{ text: 'look' }], { messageId });
    expect(ok.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  });

  it("a change of modes holds for the very next send (read by the new task's write itself)", async () => {
    expect((await send('carol', [{ text: '# Title', mediaType: 'text/markdown' }])).body.error.code).toBe(-32005);
    expect(
      (await rest(hub, 'PATCH', 'api/agents/carol', { token: carol.token, body: { inputModes: ['text/*'] } })).status,
    ).toBe(200);
    expect((await send('carol', [{ text: '# Title', mediaType: 'text/markdown' }])).body.result.task).toBeDefined();
    expect(
      (await rest(hub, 'PATCH', 'api/agents/carol', { token: carol.token, body: { inputModes: null } })).status,
    ).toBe(200);
    expect((await send('carol', [{ text: '# Title', mediaType: 'text/markdown' }])).body.error.code).toBe(-32005);
  });

  it('raw JSON-RPC: the code, the part named, and the modes that would do', async () => {
    const refused = await send('carol', [{ text: 'notes' }, { text: '# Title', mediaType: 'text/markdown' }]);
    expect(refused.body.error.code).toBe(-32005);
    expect(refused.body.error.message).toContain('message.parts[1] is text/markdown');
    expect(refused.body.error.message).toContain('text/plain, application/json');
  });

  it('a text part is text/plain, a data part application/json, parameters are ignored, wildcards honoured', async () => {
    expect(
      (await send('carol', [{ text: 'hi', mediaType: 'text/plain; charset=utf-8' }, { data: { a: 1 } }])).body.result
        .task,
    ).toBeDefined();
    expect((await send('bob', [{ text: 'a picture' }, PNG])).body.result.task).toBeDefined();
    expect((await send('bob', [{ data: { a: 1 } }])).body.error.code).toBe(-32005);
    expect(
      (await send('dave', [{ url: 'https://example.com/v.mp4', mediaType: 'video/mp4' }])).body.result.task,
    ).toBeDefined();
  });

  it('a follow-up is held to the same modes, and leaves the task as it was', async () => {
    const task = (await send('carol', [{ text: 'start' }])).body.result.task;
    const before = (await rpc(base('carol'), 'GetTask', { id: task.id }, { token: alice.token })).body.result;
    const refused = await send('carol', [PNG], { taskId: task.id });
    expect(refused.body.error.code).toBe(-32005);
    const after = (await rpc(base('carol'), 'GetTask', { id: task.id }, { token: alice.token })).body.result;
    expect(after.history).toEqual(before.history);
  });
});
