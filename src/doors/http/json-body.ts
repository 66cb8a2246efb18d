import { HubError } from '../../errors/hub-error.js';
import type { DoorKind } from './exchange.js';
import { notJson } from './errors.js';

/** JSON deeper than this is refused before anything walks it recursively. */
const MAX_DEPTH = 64;

/** Recursion stops at MAX_DEPTH + 1 frames, so no body can exhaust the stack here. */
function tooDeep(value: unknown, depth = 1): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > MAX_DEPTH) return true;
  if (Array.isArray(value)) return value.some((item) => tooDeep(item, depth + 1));
  for (const key in value) if (tooDeep((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** A JSON body as sent to `door` (an empty one is none); a refusal says what to send instead. */
export function parseJsonBody(text: string, door: DoorKind | undefined): unknown {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch (e) {
    throw notJson(door, e);
  }
  if (tooDeep(parsed))
    throw new HubError('INVALID_REQUEST', `The body nests deeper than ${MAX_DEPTH} levels`, {
      hint: 'Flatten the data',
    });
  return parsed;
}
