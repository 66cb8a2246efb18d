import type { FastifyRequest } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import type { Caller } from '../../identity/caller.js';

export type DoorKind = 'jsonrpc' | 'rest';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Shapes this route's errors: JSON-RPC envelopes or REST bodies. */
    door?: DoorKind;
  }
}

const callers = new WeakMap<FastifyRequest, Promise<Caller>>();

/**
 * The caller a request's token names, authenticated once (a bad token is a 401 on any route that
 * asks); its token may still be to check (see TokenCheck), so only a door that confirms it before
 * answering may act on it.
 */
export function claimedCallerOf(hub: Hub, request: FastifyRequest): Promise<Caller> {
  let caller = callers.get(request);
  if (!caller) {
    caller = hub.identity.authenticate(request.headers.authorization, request.ip);
    callers.set(request, caller);
  }
  return caller;
}

/** The caller of a request, its token checked. */
export async function callerOf(hub: Hub, request: FastifyRequest): Promise<Caller> {
  const caller = await claimedCallerOf(hub, request);
  await hub.identity.confirm(caller);
  return caller;
}

/** The base URL clients used: the public URL, or the (guarded) loopback Host of the request. */
export const baseUrl = (publicUrl: URL | undefined, request: FastifyRequest): string =>
  publicUrl ? publicUrl.href : `http://${request.headers.host ?? '127.0.0.1'}/`;

/** The write's `Idempotency-Key` header, when it names one (an empty or repeated header names none). */
export const idempotencyKey = (request: FastifyRequest): string | undefined => {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key !== '' ? key : undefined;
};
