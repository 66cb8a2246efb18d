import { createHash } from 'node:crypto';
import { invalidParams } from '../errors/hub-error.js';
import type { TaskCursor } from '../store/store.js';

/** A page token is opaque to callers: the keyset cursor plus a hash of the filters it was issued for. */
const filterHash = (filters: unknown): string => createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);

export function encodePageToken(cursor: TaskCursor, filters: unknown): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.id, filterHash(filters)])).toString('base64url');
}

/** The keyset cursor of a page token as list-query fields: `{ after }`, or nothing for a first page. */
export const cursorFrom = (token: string | undefined, filters: unknown, field: string): { after?: TaskCursor } => {
  const after = decodePageToken(token, filters, field);
  return after ? { after } : {};
};

export function decodePageToken(token: string | undefined, filters: unknown, field: string): TaskCursor | undefined {
  if (token === undefined || token === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'number' || typeof parsed[1] !== 'string') {
    throw invalidParams(field, 'is not a token this hub issued', 'Send the token from the previous page unchanged, or none for the first page');
  }
  if (parsed[2] !== filterHash(filters)) {
    throw invalidParams(field, 'was issued for other filters', 'Keep the filters of the first page, or start again without a token');
  }
  return { updatedAt: parsed[0], id: parsed[1] };
}
