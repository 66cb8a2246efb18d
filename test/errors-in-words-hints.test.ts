/**
 * Errors in people's words (issue 10), the hints that say where to go instead: REST never hints
 * at JSON-RPC, and a task read at the wrong base says where it can be read (only to a caller who
 * may read it).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { message, wordsHub } from './helpers/errors-in-words.js';
import { ADMIN_TOKEN, rest, rpc, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient } from './helpers/sdk.js';

const served = wordsHub();
const { bobBase, aliceToBob } = served;
let hub: TestHub;
let alice: Registered;
let carol: Registered;
beforeAll(() => {
  ({ hub, alice, carol } = served.parties());
});

describe('REST answers never hint at JSON-RPC', () => {
  const A2A_WORDS = /SendMessage|ListTasks|GetTask|CancelTask|JSON-RPC|"skill"/;
  const expectRestHint = (res: { body: any }, says: RegExp) => {
    expect(res.body.error.hint).toMatch(says);
    expect(JSON.stringify(res.body)).not.toMatch(A2A_WORDS);
    expect(res.body.error).not.toHaveProperty('restHint');
  };

  it("tells a task's sender who tries to respond how to read the task instead", async () => {
    const id = await aliceToBob();
    const res = await rest(hub, 'POST', `api/tasks/${id}/respond`, {
      token: alice.token,
      body: { state: 'TASK_STATE_COMPLETED' },
    });
    expect(res.status).toBe(403);
    expectRestHint(res, new RegExp(`GET /api/tasks/${id}`));
  });

  it.each(['inbox', 'sent'])('tells the admin, who has no %s, which REST way reads tasks', async (box) => {
    const res = await rest(hub, 'GET', `api/${box}`, { token: ADMIN_TOKEN });
    expect(res.status).toBe(403);
    expectRestHint(res, /agent's token.*GET \/api\/tasks\/\{id\}/);
  });

  it('names POST …/close for a call canceled over REST, and the data part for one canceled over JSON-RPC', async () => {
    const opened = await rpc(
      hub.url,
      'SendMessage',
      {
        message: message({
          parts: [
            {
              data: {
                skill: 'call.open',
                args: { title: 'Hints', question: 'Which door should a hint name, and why?' },
              },
            },
          ],
        }),
      },
      { token: ADMIN_TOKEN },
    );
    const id = opened.body.result?.task?.id as string;
    expect(id, JSON.stringify(opened.body)).toBeTruthy();
    const viaRest = await rest(hub, 'POST', `api/tasks/${id}/cancel`, { token: ADMIN_TOKEN, body: {} });
    expect(viaRest.status).toBe(409);
    expect(viaRest.body.error.code).toBe('TASK_NOT_CANCELABLE');
    expectRestHint(viaRest, new RegExp(`POST /api/tasks/${id}/close`));
    const viaRpc = await rpc(hub.url, 'CancelTask', { id }, { token: ADMIN_TOKEN });
    const info = viaRpc.body.error.data[0];
    expect(info.reason).toBe('TASK_NOT_CANCELABLE');
    expect(info.metadata.hint).toContain('SendMessage');
    expect(info.metadata.hint).toContain('{"skill": "call.close"}');
    expect(info.metadata).not.toHaveProperty('restHint');
  });
});

describe('a task asked for at the wrong base', () => {
  it('says where a task the caller may read can be read', async () => {
    const id = await aliceToBob();
    const res = await rpc(`${hub.url}agents/carol/`, 'GetTask', { id }, { token: alice.token });
    expect(res.body.error.code).toBe(-32001);
    expect(res.body.error.message).toContain('not at this base');
    expect(res.body.error.data[0].metadata.hint).toContain(`${hub.url}agents/bob/`);
    expect(res.body.error.data[0].metadata.taskBase).toBe(`${hub.url}agents/bob/`);
    // The right base answers it.
    const there = await rpc(`${hub.url}agents/bob/`, 'GetTask', { id }, { token: alice.token });
    expect(there.body.result.id).toBe(id);
  });

  it('tells the official SDK client too', async () => {
    const id = await aliceToBob();
    const client = await sdkClient(`${hub.url}agents/carol/`, alice.token);
    const error = await client.getTask({ tenant: '', id, historyLength: undefined }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe('TaskNotFoundError');
    expect(error?.message).toContain('not at this base');
  });

  it('tells a caller who may not read the task nothing more than for a task that does not exist', async () => {
    const id = await aliceToBob();
    const hidden = await rpc(bobBase(), 'GetTask', { id }, { token: carol.token });
    const missing = await rpc(bobBase(), 'GetTask', { id: randomUUID() }, { token: carol.token });
    expect(hidden.body.error.code).toBe(-32001);
    expect(JSON.stringify(hidden.body)).not.toMatch(/agents\/|taskBase|not at this base/);
    const shape = (body: any, taskId: string) => JSON.parse(JSON.stringify(body).replaceAll(taskId, '<id>'));
    expect(shape(hidden.body, id)).toEqual(shape(missing.body, missing.body.error.message.split(' ')[1]));
  });
});
