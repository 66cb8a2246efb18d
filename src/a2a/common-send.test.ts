import { describe, expect, it } from 'vitest';
import { commonSend } from './common-send.js';
import { sendMessageParamsSchema } from './schemas.js';

const text = { text: 'hello' };
const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [text] };

/** Every way each field can be sent: common values, edge values, and what the schema refuses or must rework. */
const MESSAGE_FIELDS: Record<string, unknown[]> = {
  messageId: ['m-1', '', 'x'.repeat(200), 'x'.repeat(201), 7, null, undefined],
  contextId: [undefined, 'c-1', '', 'x'.repeat(200), 'x'.repeat(201), 3, null],
  taskId: [undefined, 't-1', '', 'x'.repeat(201), false, null],
  role: ['ROLE_USER', 'ROLE_AGENT', 'user', 'ROLE_UNSPECIFIED', undefined, null],
  parts: [
    [text],
    [text, { text: '' }, { text: 'typed', mediaType: 'text/markdown' }],
    [],
    [{}],
    [{ text: 'a', raw: 'aGk=' }],
    [{ data: { a: 1 } }],
    [{ text: 'a', metadata: { k: 1 } }],
    [{ text: 'a', mediaType: 5 }],
    [{ text: 5 }],
    [{ text: 'a', mediaType: null }],
    [{ text: 'a', media_type: 'text/plain' }],
    [null],
    ['hello'],
    { 0: text },
    undefined,
  ],
};

const CONFIGURATIONS: unknown[] = [
  undefined,
  {},
  { returnImmediately: true },
  { returnImmediately: 'yes' },
  { historyLength: 0 },
  { historyLength: 3, acceptedOutputModes: ['text/plain'], returnImmediately: false },
  { historyLength: -1 },
  { historyLength: 1.5 },
  { historyLength: '4' },
  { historyLength: 2 ** 53 },
  { acceptedOutputModes: [] },
  { acceptedOutputModes: ['text/plain', 1] },
  { acceptedOutputModes: 'text/plain' },
  { taskPushNotificationConfig: { url: 'https://example.com/hook' } },
  { return_immediately: true },
  null,
  [],
];

/** Each field's variants with the others common, and each configuration with the common message. */
function cases(): unknown[] {
  const all: unknown[] = [];
  for (const [field, values] of Object.entries(MESSAGE_FIELDS)) {
    for (const value of values) all.push({ message: { ...message, [field]: value } });
  }
  for (const configuration of CONFIGURATIONS) all.push({ message, configuration });
  all.push(
    { message: { ...message, metadata: { a: 1 } } },
    { message: { ...message, extensions: ['https://example.com/ext'] } },
    { message: { ...message, message_id: 'm-2' } },
    { message: { ...message, kind: 'message' } },
    { message, metadata: { trace: 'x' } },
    { message, extra: true },
    { message: null },
    {},
    null,
    'hello',
    [message],
  );
  return all;
}

describe('commonSend, the fast path of SendMessage params', () => {
  it('answers what the schema answers, key for key, or leaves the request to the schema', () => {
    let taken = 0;
    for (const params of cases()) {
      const fast = commonSend(params);
      if (fast === undefined) continue;
      taken++;
      const parsed = sendMessageParamsSchema.safeParse(params);
      expect(parsed.success, JSON.stringify(params)).toBe(true);
      // JSON.stringify keeps key order: the idempotency fingerprint is taken over this.
      expect(JSON.stringify(fast), JSON.stringify(params)).toBe(JSON.stringify(parsed.data));
      expect(fast).toEqual(parsed.data);
    }
    expect(taken).toBeGreaterThan(15);
  });

  it('takes the common sends', () => {
    const common = [
      { message },
      { message: { ...message, contextId: 'c-1', taskId: 't-1' } },
      { message: { ...message, contextId: '' } },
      { message, configuration: { returnImmediately: true, historyLength: 2 } },
    ];
    for (const params of common) expect(commonSend(params), JSON.stringify(params)).toBeDefined();
  });

  it('leaves to the schema every request it refuses', () => {
    for (const params of cases()) {
      if (sendMessageParamsSchema.safeParse(params).success) continue;
      expect(commonSend(params), JSON.stringify(params)).toBeUndefined();
    }
  });

  it('builds new objects: the request it was sent is not the one it answers', () => {
    const params = { message: { ...message }, configuration: { acceptedOutputModes: ['text/plain'] } };
    const fast = commonSend(params)!;
    expect(fast.message).not.toBe(params.message);
    expect(fast.message.parts).not.toBe(params.message.parts);
    expect(fast.configuration!.acceptedOutputModes).not.toBe(params.configuration.acceptedOutputModes);
  });
});
