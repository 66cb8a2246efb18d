/**
 * What Cairn's older HTTP routes share: the caller at the hub's base, the call context of a
 * send that never blocks nor streams, the Idempotency-Key header, and a page's query (`mode`,
 * `limit` 1 to 50, `cursor`) with the states each mode lists.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { TaskState } from '../../a2a/types.js';
import { renamedFields } from '../../a2a/validate.js';
import { baseUrl, callerOf } from '../../doors/http/context.js';
import { HubError } from '../../errors/hub-error.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import type { CallContext } from '../../operations/context.js';

export const HUB_DOOR = { kind: 'hub' } as const;

export const actorOf = async (hub: Hub, request: FastifyRequest): Promise<Actor> => ({
  caller: await callerOf(hub, request),
  door: HUB_DOOR,
});

/** A send's context over HTTP: nothing here blocks or streams, so the signal never fires. */
export const sendCall = (publicUrl: URL | undefined, request: FastifyRequest): CallContext => ({
  base: baseUrl(publicUrl, request),
  signal: new AbortController().signal,
  reserveStream: () => {
    throw new HubError('UNSUPPORTED_OPERATION', 'Nothing streams here');
  },
});

/** A one-part data message, as a route's body is sent on; a keyed write reuses its key as the messageId. */
export const dataMessage = (data: unknown, key: string | undefined, taskId?: string) => ({
  message: {
    messageId: key ?? randomUUID(),
    role: 'ROLE_USER' as const,
    parts: [{ data }],
    ...(taskId === undefined ? {} : { taskId }),
  },
});

/** A page's query with its modes (each one's states; undefined: every state). */
export function pageQuery<M extends string>(modes: Readonly<Record<M, readonly TaskState[] | undefined>>, fallback: M) {
  const names = Object.keys(modes) as [M, ...M[]];
  return z
    .object({
      mode: z.enum(names, `must be ${names.join(', ')}`).default(fallback),
      limit: z.coerce
        .number()
        .int('must be a whole number')
        .min(1, 'must be 1 to 50')
        .max(50, 'must be 1 to 50')
        .default(20),
      cursor: z.string().min(1).optional(),
    })
    .strict();
}

/** The list's page token is the route's `cursor`: a refusal of it names it so. */
export const asCursor = (e: unknown) => renamedFields(e, (field) => (field === 'pageToken' ? 'cursor' : field));
