/**
 * ProtoJSON callers may spell request fields snake_case (`message_id`); the hub renames them
 * before checking (validate.ts camelKeys), and its refusals name each field as the caller spelled
 * it, on every JSON-RPC method, on a real hub on 127.0.0.1 with raw JSON-RPC requests. A field
 * that was not sent keeps its camelCase name; inside `data` and `metadata` nothing is renamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spelledAsSent } from '../src/a2a/validate.js';
import { registerAll, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let alice: Registered;
let taskId: string;
const bobBase = () => `${hub.url}agents/bob/`;
const call = (method: string, params: unknown, headers: Record<string, string> = {}) =>
  rpc(bobBase(), method, params, { token: alice.token, headers });
const violations = (body: any): { field: string; description: string }[] =>
  body.error.data.find((d: any) => d['@type'].endsWith('BadRequest')).fieldViolations;
const fieldsOf = async (answer: Promise<{ body: any }>) => violations((await answer).body).map((v) => v.field);

const snakeMessage = (messageId: unknown, more: Record<string, unknown> = {}) => ({
  message_id: messageId,
  role: 'ROLE_USER',
  parts: [{ text: 'x' }],
  ...more,
});

beforeAll(async () => {
  hub = await startTestHub();
  [alice] = await registerAll(hub, 'alice', 'bob');
  taskId = (await call('SendMessage', { message: snakeMessage('snake-0') })).body.result.task.id;
});
afterAll(() => hub.destroy());

describe('SendMessage with snake_case fields', () => {
  it('names a bad message_id as sent, in the fields and in the message', async () => {
    const res = await call('SendMessage', { message: snakeMessage('') });
    expect(res.body.error.code).toBe(-32602);
    expect(violations(res.body)).toEqual([{ field: 'params.message.message_id', description: 'must not be empty' }]);
    expect(res.body.error.message).toBe("Invalid 'params.message.message_id': must not be empty");
  });

  it('names fields inside parts and configuration as sent, camelCase ones as sent too', async () => {
    const fields = await fieldsOf(
      call('SendMessage', {
        message: snakeMessage('snake-1', { parts: [{ text: 'x' }, { text: 'y', media_type: 5 }], contextId: 7 }),
        configuration: { history_length: -1, accepted_output_modes: 'text/plain' },
      }),
    );
    expect(fields.sort()).toEqual(
      [
        'params.configuration.accepted_output_modes',
        'params.configuration.history_length',
        'params.message.contextId',
        'params.message.parts[1].media_type',
      ].sort(),
    );
  });

  it('names the inline push config as sent, where the hub checks its URL', async () => {
    const fields = await fieldsOf(
      call('SendMessage', {
        message: snakeMessage('snake-2'),
        configuration: { task_push_notification_config: { url: 'http://example.com/hook' } },
      }),
    );
    expect(fields).toEqual(['params.configuration.task_push_notification_config.url']);
  });

  it('keeps camelCase for a field that was not sent, and when both spellings were sent', async () => {
    expect(
      await fieldsOf(call('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }], context_id: 'c' } })),
    ).toEqual(['params.message.messageId']);
    expect(await fieldsOf(call('SendMessage', { message: snakeMessage('snake-3', { messageId: '' }) }))).toEqual([
      'params.message.messageId',
    ]);
  });
});

describe('task methods with snake_case fields', () => {
  it.each([
    ['GetTask', 'params.history_length', () => ({ id: taskId, history_length: -1 })],
    ['CancelTask', 'params.history_length', () => ({ id: taskId, history_length: 'all' })],
    ['SubscribeToTask', 'params.history_length', () => ({ id: taskId, history_length: -1 })],
    ['ListTasks', 'params.page_size', () => ({ page_size: 0 })],
    ['ListTasks', 'params.status_timestamp_after', () => ({ status_timestamp_after: 'yesterday' })],
  ])('%s names %s as sent', async (method, field, params) => {
    expect(await fieldsOf(call(method, params()))).toEqual([field]);
  });
});

describe('push config methods with snake_case fields', () => {
  it.each([
    ['CreateTaskPushNotificationConfig', () => ({ task_id: '', url: 'https://example.com/hook' })],
    ['GetTaskPushNotificationConfig', () => ({ task_id: '', id: 'x' })],
    ['ListTaskPushNotificationConfigs', () => ({ task_id: 5 })],
    ['DeleteTaskPushNotificationConfig', () => ({ task_id: '', id: 'x' })],
  ])('%s names params.task_id as sent', async (method, params) => {
    expect(await fieldsOf(call(method, params()))).toEqual(['params.task_id']);
  });

  it('0.3 tasks/pushNotificationConfig/set names its config where and as it was sent', async () => {
    const fields = await fieldsOf(
      call(
        'tasks/pushNotificationConfig/set',
        { task_id: taskId, push_notification_config: { url: 'http://example.com/hook' } },
        { 'a2a-version': '0.3' },
      ),
    );
    expect(fields).toEqual(['params.push_notification_config.url']);
  });

  it('0.3 message/send names message_id as sent', async () => {
    const fields = await fieldsOf(
      call(
        'message/send',
        { message: { kind: 'message', role: 'user', message_id: '', parts: [{ kind: 'text', text: 'x' }] } },
        { 'a2a-version': '0.3' },
      ),
    );
    expect(fields).toEqual(['params.message.message_id']);
  });
});

describe('spelledAsSent', () => {
  const sent = {
    message: {
      message_id: null,
      parts: [{ text: 'x' }, { media_type: 5, data: { page_size: 1 }, metadata: { context_id: 'c' } }],
    },
  };
  const spelled = spelledAsSent(sent);

  it('follows array indexes, and names a field sent as null as sent', () => {
    expect(spelled('message.parts[1].mediaType')).toBe('message.parts[1].media_type');
    expect(spelled('message.messageId')).toBe('message.message_id');
  });

  it('renames nothing inside data and metadata, which were never renamed', () => {
    expect(spelled('message.parts[1].data.pageSize')).toBe('message.parts[1].data.pageSize');
    expect(spelled('message.parts[1].metadata.contextId')).toBe('message.parts[1].metadata.contextId');
  });

  it('leaves a path that is not in the request as it is', () => {
    expect(spelled('')).toBe('');
    expect(spelled('configuration.historyLength')).toBe('configuration.historyLength');
    expect(spelled('message.parts[7].mediaType')).toBe('message.parts[7].mediaType');
  });
});
