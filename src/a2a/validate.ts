import { z } from 'zod';
import { HubError, isHubError, joinField } from '../errors/hub-error.js';
import { describe, violations } from './zod-issues.js';

/** Keys whose values belong to the caller and are never renamed. */
const OPAQUE_KEYS = new Set(['data', 'metadata', 'params']);

const camel = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * ProtoJSON parsers accept the proto (snake_case) field names too. This renames them to
 * camelCase everywhere except inside caller-owned values (data parts, metadata).
 */
export function camelKeys(value: unknown): unknown {
  return needsRenaming(value) ? renamed(value) : value;
}

/** Whether any key outside caller-owned values is snake_case or holds null (most requests: no, and nothing is copied). */
function needsRenaming(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(needsRenaming);
  for (const key in value) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner === null || key.includes('_')) return true;
    if (!OPAQUE_KEYS.has(key) && needsRenaming(inner)) return true;
  }
  return false;
}

function renamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renamed);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === null) continue; // ProtoJSON: null means the field is not set
    const name = key.includes('_') ? camel(key) : key;
    if (name in out && name !== key) continue; // the camelCase spelling wins when both are sent
    out[name] = OPAQUE_KEYS.has(name) ? inner : renamed(inner);
  }
  return out;
}

/** A field path's names and `[index]`es (`message.parts[0].text`); the dots between are kept as they are. */
const FIELD_PART = /\[(\d+)\]|[^.[\]]+/g;

/**
 * Field paths of a request camelKeys renamed, as its caller spelled them in `sent`:
 * `message.messageId` is `message.message_id` when that was sent. camelKeys records nothing, so
 * a valid request pays nothing; a refusal walks `sent` along the fields it names (renamedFields).
 */
export function spelledAsSent(sent: unknown): (field: string) => string {
  return (field) => {
    let at = sent;
    return field.replace(FIELD_PART, (part, index: string | undefined) => {
      if (index !== undefined) {
        at = Array.isArray(at) ? at[Number(index)] : undefined;
        return part;
      }
      const key = keySent(at, part);
      // Inside caller-owned values nothing was renamed: the path names them as sent.
      at = OPAQUE_KEYS.has(part) ? undefined : (at as Record<string, unknown> | undefined)?.[key];
      return key;
    });
  };
}

/** The key of `value` that camelKeys read as `name`: `name` itself when sent (it wins), else a snake_case spelling of it. */
function keySent(value: unknown, name: string): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return name;
  const object = value as Record<string, unknown>;
  if (Object.hasOwn(object, name) && object[name] !== null) return name;
  return Object.keys(object).find((key) => key.includes('_') && camel(key) === name) ?? name;
}

/**
 * Validates `value` against `schema`; a failure becomes INVALID_PARAMS naming each bad field,
 * under `root` (where the value sits in the request, e.g. `message.parts[0].data`).
 */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, root = ''): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // Parsed again only to explain: zod's per-call options would slow every valid request.
  const explained = schema.safeParse(value, { error: describe, reportInput: true });
  const { violations: fields, hint } = violations(explained.error?.issues ?? result.error.issues);
  throw new HubError('INVALID_PARAMS', undefined, {
    fields: fields.map((f) => ({ field: joinField(root, f.field), description: f.description })),
    hint: hint ?? 'Fix the fields named in the error and send the request again',
  });
}

/**
 * The same refusal with each field renamed by `rename`; an error that names no field, as it is.
 * A 0.3 method moves its params into 1.0 places before they are checked (legacy.ts), so its
 * refusals are renamed back to where its caller sent each field.
 */
export function renamedFields(error: unknown, rename: (field: string) => string): unknown {
  if (!isHubError(error) || error.fields.length === 0) return error;
  const fields = error.fields.map((f) => ({ field: rename(f.field), description: f.description }));
  // A message written from the fields (it names the first) is written again from the renamed ones; another is kept.
  const fromFields = error.message === new HubError(error.code, undefined, { fields: error.fields }).message;
  return new HubError(error.code, fromFields ? undefined : error.message, {
    hint: error.hint,
    restHint: error.restHint,
    fields,
    meta: error.meta,
  });
}
