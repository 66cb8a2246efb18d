/**
 * Refusals of the 0.3 methods whose params the hub moves into 1.0 places (legacy.ts) name each
 * field where the 0.3 caller sent it, on a real hub on 127.0.0.1 with raw JSON-RPC requests:
 * `tasks/pushNotificationConfig/set` under `params.pushNotificationConfig`, `message/send` with
 * its inline push config and its file parts. The 1.0 methods keep their own paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let alice: Registered;
let taskId: string;
const bobBase = () => `${hub.url}agents/bob/`;
const violations = (body: any): { field: string; description: string }[] =>
  body.error.data.find((d: any) => d['@type'].endsWith('BadRequest')).fieldViolations;

beforeAll(async () => {
  hub = await startTestHub(); // outbound rules on: a plain-http push URL is refused
  [alice] = await registerAll(hub, 'alice', 'bob');
  taskId = (
    await rpc(
      bobBase(),
      'SendMessage',
      { message: { messageId: 'legacy-push-1', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    )
  ).body.result.task.id;
});
afterAll(() => hub.destroy());

const set03 = (params: unknown, headers: Record<string, string> = {}) =>
  rpc(bobBase(), 'tasks/pushNotificationConfig/set', params, { token: alice.token, headers });

describe('0.3 tasks/pushNotificationConfig/set', () => {
  it.each([
    ['no A2A-Version', {}],
    ['A2A-Version 0.3', { 'a2a-version': '0.3' }],
  ])(
    'names a URL the hub may not call params.pushNotificationConfig.url (%s), and stores nothing',
    async (_, headers) => {
      const res = await set03(
        { taskId, pushNotificationConfig: { id: 'plain', url: 'http://example.com/hook' } },
        headers,
      );
      expect(res.body.error.code).toBe(-32602);
      expect(violations(res.body)).toEqual([
        { field: 'params.pushNotificationConfig.url', description: 'must be an https URL' },
      ]);
      expect(res.body.error.message).toBe("Invalid 'params.pushNotificationConfig.url': must be an https URL");
      const list = await rpc(bobBase(), 'tasks/pushNotificationConfig/list', { id: taskId }, { token: alice.token });
      expect(list.body.result).toEqual([]);
    },
  );

  it('names a missing url, and a missing scheme, where 0.3 has them; taskId stays at the top', async () => {
    const noUrl = await set03({ taskId, pushNotificationConfig: { id: 'x' } });
    expect(violations(noUrl.body).map((v) => v.field)).toEqual(['params.pushNotificationConfig.url']);
    const noConfig = await set03({ taskId });
    expect(violations(noConfig.body).map((v) => v.field)).toEqual(['params.pushNotificationConfig.url']);
    const noScheme = await set03({
      taskId,
      pushNotificationConfig: { url: 'https://example.com/hook', authentication: { schemes: [] } },
    });
    expect(violations(noScheme.body).map((v) => v.field)).toEqual([
      'params.pushNotificationConfig.authentication.schemes[0]',
    ]);
    const noTask = await set03({ pushNotificationConfig: { url: 'https://example.com/hook' } });
    expect(violations(noTask.body).map((v) => v.field)).toEqual(['params.taskId']);
  });

  it('leaves the 1.0 CreateTaskPushNotificationConfig naming params.url', async () => {
    const res = await rpc(
      bobBase(),
      'CreateTaskPushNotificationConfig',
      { taskId, url: 'http://example.com/hook' },
      { token: alice.token },
    );
    expect(violations(res.body).map((v) => v.field)).toEqual(['params.url']);
  });
});

describe('0.3 message/send', () => {
  const send03 = (message: Record<string, unknown>, configuration?: Record<string, unknown>) =>
    rpc(
      bobBase(),
      'message/send',
      { message: { kind: 'message', role: 'user', ...message }, ...(configuration ? { configuration } : {}) },
      { token: alice.token, headers: { 'a2a-version': '0.3' } },
    );

  it('names its inline push config configuration.pushNotificationConfig', async () => {
    const res = await send03(
      { messageId: 'legacy-push-2', parts: [{ kind: 'text', text: 'x' }] },
      { pushNotificationConfig: { url: 'http://example.com/hook' } },
    );
    expect(res.body.error.code).toBe(-32602);
    expect(violations(res.body).map((v) => v.field)).toEqual(['params.configuration.pushNotificationConfig.url']);
    expect(res.body.error.message).toContain("'params.configuration.pushNotificationConfig.url'");
  });

  it("names a file part's fields under file", async () => {
    const file = await send03({
      messageId: 'legacy-push-3',
      parts: [
        { kind: 'text', text: 'x' },
        { kind: 'file', file: { uri: 'not a url', mimeType: 'text/plain' } },
      ],
    });
    expect(violations(file.body).map((v) => v.field)).toEqual(['params.message.parts[1].file.uri']);
    const bytes = await send03({
      messageId: 'legacy-push-4',
      parts: [{ kind: 'file', file: { bytes: '*not base64*' } }],
    });
    expect(violations(bytes.body).map((v) => v.field)).toEqual(['params.message.parts[0].file.bytes']);
  });
});
