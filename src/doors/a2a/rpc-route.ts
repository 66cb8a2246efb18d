/**
 * One JSON-RPC endpoint as an HTTP route: the version asked for, the caller, the end signal, the
 * envelope (jsonrpc.ts), and the answer as one JSON body or an event stream. The A2A door's bases
 * use it with the A2A methods; a seed dialect with its own (src/dialects/).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import { callerName } from '../../identity/caller.js';
import type { StreamSettings } from '../../config/index.js';
import { baseUrl, claimedCallerOf } from '../http/context.js';
import { errorHeaders } from '../http/errors.js';
import type { OpenStreams } from '../http/open-streams.js';
import { publicCard } from './bases.js';
import type { Bindings } from './card.js';
import { answer, type Dispatch } from './jsonrpc.js';
import { lastEventIdOf } from './last-event-id.js';
import { jsonRpcFrames, writeEventStream } from './sse.js';
import { requestedVersion } from './version.js';

export interface RpcRouteOptions {
  publicUrl: URL | undefined;
  streams: StreamSettings;
  logError: (error: unknown, request: FastifyRequest) => void;
  bindings: Bindings;
  /** Every stream of this process, on every binding. */
  open: OpenStreams;
  /** The base the call addresses. */
  door: (request: FastifyRequest) => Promise<Door>;
  /** The methods and error table (default: the A2A door's). */
  dispatch?: Dispatch;
}

export function jsonRpcHandler(hub: Hub, options: RpcRouteOptions) {
  const { publicUrl, logError, bindings, open: streams, door, dispatch } = options;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const version = requestedVersion(request);
    // Only a stream or a blocking send needs an end signal: made on first use, so plain calls do
    // not pay for one. It fires when the answer's connection closes (the client left, or the answer ended).
    let controller: AbortController | undefined;
    const ending = () => {
      if (controller) return controller;
      const made = (controller = new AbortController());
      // Asked for late (a blocking send asks after its write), the connection may have closed already.
      if (reply.raw.closed) made.abort();
      else reply.raw.once('close', () => made.abort());
      return made;
    };
    // The caller's token is checked by answer(), before the method runs or in the method's own statement.
    const caller = await claimedCallerOf(hub, request);
    const who = callerName(caller);
    const base = baseUrl(publicUrl, request);
    let addressed: Door | undefined;
    const result = await answer(
      hub,
      request.body,
      version,
      async () => ({ caller, door: (addressed = await door(request)), hubUrl: base }),
      {
        base,
        get signal() {
          return ending().signal;
        },
        ...lastEventIdOf(request),
        reserveStream: () => streams.reserve(who),
        publicCard: () => publicCard(hub, addressed!, base, bindings),
      },
      dispatch,
    );
    if (result.stream) {
      const { events } = result.stream;
      const { release } = events; // not the stream itself, whose snapshot would then live as long as the stream
      const abort = ending();
      reply.hijack();
      const ended = streams.hold(who, abort);
      return writeEventStream(reply.raw, jsonRpcFrames(result.stream.id), events, abort, options.streams).finally(
        () => {
          ended();
          release();
        },
      );
    }
    if (result.error) reply.headers(errorHeaders(result.error));
    if (result.error?.code === 'INTERNAL') logError(result.cause, request);
    if (result.body === undefined) return reply.code(result.status).send();
    return reply.code(result.status).type('application/json').send(result.body);
  };
}
