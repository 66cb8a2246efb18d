import { createHash } from 'node:crypto';
import { invalidParams } from '../errors/hub-error.js';
import type { TaskCursor } from '../store/store.js';

/**
 * A page token is opaque to callers: the keyset cursor (its order's keys, then the id) plus a hash
 * of the filters it was issued for. A token of the `updated` order is [updatedAt, id, hash]; of
 * the `rank` order [rank, createdAt, id, hash].
 */
const filterHash = (filters: unknown): string =>
  createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);

const pack = (keys: number[], id: string, filters: unknown): string =>
  Buffer.from(JSON.stringify([...keys, id, filterHash(filters)])).toString('base64url');

/** A token's keys (as many as its order has) and id, or undefined for none; refuses a token not issued here, or for other filters. */
function unpack(
  token: string | undefined,
  filters: unknown,
  field: string,
  keyCount: number,
): { keys: number[]; id: string } | undefined {
  if (token === undefined || token === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const fields: unknown[] = Array.isArray(parsed) ? parsed : [];
  const keys = fields.slice(0, keyCount);
  const id = fields[keyCount];
  if (
    fields.length !== keyCount + 2 ||
    !keys.every((k): k is number => typeof k === 'number') ||
    typeof id !== 'string'
  ) {
    throw invalidParams(
      field,
      'is not a token this hub issued',
      'Send the token from the previous page unchanged, or none for the first page',
    );
  }
  if (fields[keyCount + 1] !== filterHash(filters)) {
    throw invalidParams(
      field,
      'was issued for other filters',
      'Keep the filters of the first page, or start again without a token',
    );
  }
  return { keys, id };
}

export const encodePageToken = (cursor: TaskCursor, filters: unknown): string =>
  pack([cursor.updatedAt], cursor.id, filters);

export function decodePageToken(token: string | undefined, filters: unknown, field: string): TaskCursor | undefined {
  const unpacked = unpack(token, filters, field, 1);
  return unpacked && { updatedAt: unpacked.keys[0]!, id: unpacked.id };
}

/** The keyset cursor of a page token as list-query fields: `{ after }`, or nothing for a first page. */
export const cursorFrom = (token: string | undefined, filters: unknown, field: string): { after?: TaskCursor } => {
  const after = decodePageToken(token, filters, field);
  return after ? { after } : {};
};

/** The token of a page in rank order that ends at `cursor`. */
export const encodeRankToken = (cursor: TaskCursor<'rank'>, filters: unknown): string =>
  pack([cursor.rank ?? 0, cursor.createdAt], cursor.id, filters);

/** A rank-order page token as list-query fields: the order, and `after` unless it is the first page. */
export function rankCursorFrom(
  token: string | undefined,
  filters: unknown,
  field: string,
): { order: 'rank'; after?: TaskCursor<'rank'> } {
  const unpacked = unpack(token, filters, field, 2);
  return unpacked
    ? { order: 'rank', after: { rank: unpacked.keys[0]!, createdAt: unpacked.keys[1]!, id: unpacked.id } }
    : { order: 'rank' };
}
