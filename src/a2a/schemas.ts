import { z } from 'zod';
import { parseState } from './states.js';
import { whenMissing } from './zod-issues.js';
import type { Part, TaskState } from './types.js';

/*
 * Unknown fields in A2A objects are ignored, on every door (A2A 1.0 §5.7: receivers SHOULD
 * ignore them): these schemas strip them, so nothing unknown is stored. Muster's own bodies
 * refuse them (.strict()); see docs/rest-api.md, "Unknown fields".
 */
const CONTENT_KEYS = ['text', 'raw', 'url', 'data'] as const;

// ProtoJSON readers take a default value as "not set", and 64-bit-safe integers written as strings.
const unsetIfEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema);
const integer = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v), schema);
/** Standard or URL-safe base64, padded or not, as ProtoJSON bytes allow. */
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

const metadata = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });

export const partSchema = z
  .object({
    text: z.string().optional(),
    raw: base64.optional(),
    url: z.url({ error: 'must be an absolute URL' }).optional(),
    data: z.unknown().optional(),
    metadata: metadata.optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  })
  .superRefine((part, ctx) => {
    const present = CONTENT_KEYS.filter((k) => part[k] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          present.length === 0
            ? 'unknown part kind: a part holds exactly one of text, raw (base64 bytes), url or data'
            : `a part holds exactly one of text, raw, url or data, not ${present.join(' and ')}`,
      });
    }
  })
  .transform((part): Part => {
    const { text, raw, url, data, metadata: meta, filename, mediaType } = part;
    return dropUndefined({ text, raw, url, data, metadata: meta, filename, mediaType });
  });

/** The longest messageId, contextId or taskId a message may carry (common-send.ts checks the same). */
export const ID_MAX = 200;

export const messageSchema = z
  .object({
    messageId: z.string(whenMissing('a unique id for this message')).min(1, 'must not be empty').max(ID_MAX),
    contextId: unsetIfEmpty(z.string().max(ID_MAX).optional()),
    taskId: unsetIfEmpty(z.string().max(ID_MAX).optional()),
    role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
    parts: z
      .array(partSchema, whenMissing('an array of parts', 'must be an array of parts'))
      .min(1, 'must hold at least one part'),
    metadata: metadata.optional(),
    extensions: z.array(z.string()).optional(),
    referenceTaskIds: z.array(z.string()).optional(),
  })
  .transform(({ messageId, contextId, taskId, role, parts, metadata: meta, extensions, referenceTaskIds }) =>
    dropUndefined({ messageId, contextId, taskId, role, parts, metadata: meta, extensions, referenceTaskIds }),
  );

const historyLength = integer(z.number().int('must be an integer').min(0, 'must be 0 or more'));

export const sendMessageParamsSchema = z.object({
  message: messageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: historyLength.optional(),
      returnImmediately: z.boolean().optional(),
      // Checked in full where the config is written (hub/push.ts), so every field it knows is kept here.
      taskPushNotificationConfig: z.object({ url: z.string() }).loose().optional(),
    })
    .optional(),
  metadata: metadata.optional(),
});

export const taskIdParamsSchema = z.object({
  id: z.string(whenMissing('the task id')).min(1),
  historyLength: historyLength.optional(),
  metadata: metadata.optional(),
});

const stateName = z
  .string(
    whenMissing('a task state such as TASK_STATE_COMPLETED', 'must be a task state name such as TASK_STATE_COMPLETED'),
  )
  .transform((name, ctx): TaskState => {
    const state = parseState(name);
    if (!state) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown state '${name}': use a TASK_STATE_* name such as TASK_STATE_WORKING, or its 0.3 spelling such as input-required`,
      });
      return z.NEVER;
    }
    return state;
  });

const isoTimestamp = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 timestamp such as 2026-01-01T00:00:00Z',
});

export const listTasksParamsSchema = z.object({
  contextId: unsetIfEmpty(z.string().optional()),
  status: unsetIfEmpty(z.union([stateName, z.literal('TASK_STATE_UNSPECIFIED').transform(() => undefined)]).optional()),
  pageSize: integer(
    z.number().int('must be an integer').min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100'),
  ).optional(),
  pageToken: z.string().optional(),
  historyLength: historyLength.optional(),
  statusTimestampAfter: isoTimestamp.optional(),
  includeArtifacts: z.boolean().optional(),
});

export { stateName, isoTimestamp };

/** ProtoJSON omits absent fields: never emit `undefined` (or null). */
export function dropUndefined<T extends object>(value: T): T {
  const out = {} as T;
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] !== undefined) out[key] = value[key];
  }
  return out;
}
