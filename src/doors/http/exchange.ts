import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { Caller } from '../../identity/caller.js';

/** Which door's shape a route's errors take: JSON-RPC envelopes or REST bodies. */
export type DoorKind = 'jsonrpc' | 'rest';

/**
 * What the steps every request shares (tracker, guard, caller, JSON-RPC route) read of a request.
 * A fastify request is one; so is the JSON-RPC lane's plain object (lane.ts), which skips fastify.
 */
export interface HttpRequest {
  readonly id: string;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The client's address: the socket's, or X-Forwarded-For's where the proxy is trusted. */
  readonly ip: string;
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly raw: IncomingMessage;
  /** Who made the request, for its log line (identity's label, never the token). */
  callerLabel: string;
  /** The caller its token names, once asked for (context.ts). */
  claimedCaller: Promise<Caller> | null;
  /** The route's pattern and its door. */
  readonly routeOptions: { readonly url?: string | undefined; readonly config?: { readonly door?: DoorKind } };
}

/** How a route answers: one JSON body, or the raw response taken over (an event stream). */
export interface HttpReply {
  readonly raw: ServerResponse;
  /** From now on the route writes the raw response itself. */
  hijack(): void;
  /** Answers `status` with `body` as JSON (none when undefined) and the extra `headers`. */
  send(status: number, headers: OutgoingHttpHeaders, body: unknown): Promise<unknown> | unknown;
}

/** A fastify reply as an HttpReply (its onSend hook and serializer run as on any route). */
export const fastifyReply = (reply: FastifyReply): HttpReply => ({
  raw: reply.raw,
  hijack: () => reply.hijack(),
  send: (status, headers, body) => {
    reply.headers(headers).code(status);
    return body === undefined ? reply.send() : reply.type('application/json').send(body);
  },
});
