import type { z } from 'zod';
import type { Message } from '../a2a/types.js';
import { parseWith } from '../a2a/validate.js';
import { invalidParams } from '../errors/hub-error.js';

/** Where a message's one data part is, for field names in errors. */
export const DATA = 'message.parts[0].data';
export const ARGS = `${DATA}.args`;

/** What a message carries when it is meant for a kind that takes structured input: one data part. */
export function onlyData(message: Message, what: string): unknown {
  const [part, ...rest] = message.parts;
  if (!part || rest.length > 0 || part.data === undefined) {
    throw invalidParams(
      'message.parts',
      `must be exactly one data part: ${what.toLowerCase()} is structured data`,
      'Send parts: [{"data": {...}}]',
    );
  }
  return part.data;
}

/** The skill a message names, `{"skill": name, "args": …}` in its only data part; undefined for any other message. */
export function skillOf(message: Message): string | undefined {
  const [part, ...rest] = message.parts;
  const data = rest.length === 0 ? part?.data : undefined;
  const skill = typeof data === 'object' && data !== null ? (data as { skill?: unknown }).skill : undefined;
  return typeof skill === 'string' ? skill : undefined;
}

/** The `args` of a skill call, checked against `schema` (errors name `message.parts[0].data.args…`). */
export function skillArgs<T extends z.ZodType>(message: Message, schema: T, what: string): z.output<T> {
  return parseWith(schema, (onlyData(message, what) as { args?: unknown }).args, ARGS);
}
