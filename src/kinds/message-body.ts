/**
 * A REST body's message (`message`, and respond's `reply`): a string, which is one text part, or
 * a Message object `{"messageId"?, "parts", "metadata"?}`. Every action that takes a message takes
 * both. Its parts are 1.0 parts by the time a kind reads them (the REST door turns 0.3 parts into
 * 1.0 ones first: doors/rest/parts.ts).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { partSchema } from '../a2a/schemas.js';
import { isJsonObject, type Message } from '../a2a/types.js';
import { checkParts } from '../wire/limits.js';

const messageObject = z.object({
  messageId: z.string().min(1).max(200).optional(),
  parts: z.array(partSchema, 'must be an array of parts').min(1, 'must hold at least one part'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const messageBody = z.preprocess((value, ctx) => {
  if (isJsonObject(value)) return value;
  if (typeof value !== 'string' || value.trim() === '') {
    ctx.addIssue({
      code: 'custom',
      message:
        typeof value === 'string'
          ? 'must not be empty: send text, or a message {"parts": [...]}'
          : 'must be text, or a message {"parts": [...]}',
    });
    return z.NEVER;
  }
  return { parts: [{ text: value }] };
}, messageObject);

export type MessageBody = z.output<typeof messageBody>;

/** The agent's message from a body's, within the hub's part limits (refusals name `field`, e.g. `message.parts`). */
export function agentMessage(input: MessageBody, field: string): Message {
  checkParts(input.parts, field);
  return {
    messageId: input.messageId ?? randomUUID(),
    role: 'ROLE_AGENT',
    parts: input.parts,
    ...(input.metadata ? { metadata: input.metadata } : {}),
  };
}
