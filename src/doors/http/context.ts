import type { FastifyRequest } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import type { Actor } from '../../hub/tasks.js';
import type { Caller } from '../../identity/caller.js';

export type DoorKind = 'jsonrpc' | 'rest';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Shapes this route's errors: JSON-RPC envelopes or REST bodies. */
    door?: DoorKind;
  }
}

const callers = new WeakMap<FastifyRequest, Promise<Caller>>();

/** The caller of a request, authenticated once (a bad token is a 401 on any route that asks). */
export function callerOf(hub: Hub, request: FastifyRequest): Promise<Caller> {
  let caller = callers.get(request);
  if (!caller) {
    caller = hub.identity.authenticate(request.headers.authorization);
    callers.set(request, caller);
  }
  return caller;
}

export const actorOf = async (hub: Hub, request: FastifyRequest, door: Door): Promise<Actor> => ({ caller: await callerOf(hub, request), door });

/** The base URL clients used: the public URL, or the (guarded) loopback Host of the request. */
export const baseUrl = (publicUrl: URL | undefined, request: FastifyRequest): string =>
  publicUrl ? publicUrl.href : `http://${request.headers.host ?? '127.0.0.1'}/`;
