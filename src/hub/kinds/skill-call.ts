import type { Message } from '../../a2a/types.js';
import { invalidParams } from '../../errors/hub-error.js';

/** What a message carries when it is meant for a kind that takes structured input: one data part. */
export function onlyData(message: Message, what: string): unknown {
  const [part, ...rest] = message.parts;
  if (!part || rest.length > 0 || part.data === undefined) {
    throw invalidParams('message.parts', `${what} is exactly one data part`, 'Send parts: [{"data": {...}}]');
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
