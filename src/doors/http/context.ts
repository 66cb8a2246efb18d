import type { Socket } from 'node:net';
import type { DoorKind, HttpRequest } from './exchange.js';
import type { Hub } from '../../hub/hub.js';
import type { Caller } from '../../identity/caller.js';
import { newTokenMemo, type TokenMemo } from '../../identity/tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller its token names, once asked for (claimedCallerOf). */
    claimedCaller: Promise<Caller> | null;
  }
  interface FastifyContextConfig {
    /** Shapes this route's errors: JSON-RPC envelopes or REST bodies. */
    door?: DoorKind;
  }
}

/**
 * The caller a request's token names, authenticated once (a bad token is a 401 on any route that
 * asks); its token may still be to check (see TokenCheck), so only a door that confirms it before
 * answering may act on it.
 */
export function claimedCallerOf(hub: Hub, request: HttpRequest): Promise<Caller> {
  // Kept on the request, not in a WeakMap: each collection of the young generation would walk the map's entries.
  return (request.claimedCaller ??= hub.authentication.authenticate(
    request.headers.authorization,
    request.ip,
    tokenMemoOf(request.raw.socket),
  ));
}

const TOKEN_MEMO = Symbol('tokenMemo');

/** The connection's TokenMemo, kept on its socket: it lives and goes with the connection. */
function tokenMemoOf(socket: (Socket & { [TOKEN_MEMO]?: TokenMemo }) | null): TokenMemo | undefined {
  return socket ? (socket[TOKEN_MEMO] ??= newTokenMemo()) : undefined;
}

/** The caller of a request, its token checked. */
export async function callerOf(hub: Hub, request: HttpRequest): Promise<Caller> {
  const caller = await claimedCallerOf(hub, request);
  await hub.authentication.confirm(caller);
  return caller;
}

/** The base URL clients used: the public URL, or the (guarded) loopback Host of the request. */
export const baseUrl = (publicUrl: URL | undefined, request: HttpRequest): string =>
  publicUrl ? publicUrl.href : `http://${request.headers.host ?? '127.0.0.1'}/`;

/** The write's `Idempotency-Key` header, when it names one (an empty or repeated header names none). */
export const idempotencyKey = (request: HttpRequest): string | undefined => {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key !== '' ? key : undefined;
};
