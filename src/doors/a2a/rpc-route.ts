/**
 * One JSON-RPC endpoint as an HTTP route: the version asked for, the caller, the end signal, the
 * envelope (jsonrpc.ts), and the answer as one JSON body or an event stream. The A2A door's bases
 * use it with the A2A methods; a seed dialect with its own (src/dialects/).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AgentCardJson, CallContext } from '../../operations/context.js';
import { fastifyReply, type HttpReply, type HttpRequest } from '../http/exchange.js';
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
import { RESPONSE_ENDED } from '../http/sse.js';
import { requestedVersion } from './version.js';

export interface RpcRouteOptions {
  publicUrl: URL | undefined;
  streams: StreamSettings;
  logError: (error: unknown, request: HttpRequest) => void;
  bindings: Bindings;
  /** Every stream of this process, on every binding. */
  open: OpenStreams;
  /** The base the call addresses. */
  door: (request: HttpRequest) => Promise<Door>;
  /** The methods and error table (default: the A2A door's). */
  dispatch?: Dispatch;
}

/**
 * A JSON-RPC call's context. A class, so every call's context has one hidden class: an object
 * literal with a getter and a spread made V8 build a new one per request, and those lengthened
 * each young-generation collection (a GetTask spent 14–21 µs per request in GC, against 1–2).
 */
class RpcCall implements CallContext {
  private controller: AbortController | undefined;
  constructor(
    readonly base: string,
    private readonly raw: ServerResponse,
    readonly lastEventId: number | undefined,
    readonly reserveStream: () => () => void,
    readonly publicCard: () => Promise<AgentCardJson>,
  ) {}

  get signal(): AbortSignal {
    return this.ending().signal;
  }

  /**
   * Only a stream or a blocking send needs an end signal: made on first use, so plain calls do
   * not pay for one. It fires when the answer's connection closes (the client left, or the answer ended).
   */
  ending(): AbortController {
    if (this.controller) return this.controller;
    const made = (this.controller = new AbortController());
    // Asked for late (a blocking send asks after its write), the connection may have closed already.
    if (this.raw.closed) made.abort(RESPONSE_ENDED);
    else this.raw.once('close', () => made.abort(RESPONSE_ENDED));
    return made;
  }
}

/** A route as a fastify route handler. */
const onFastify = (route: ReturnType<typeof jsonRpcRoute>) => (request: FastifyRequest, reply: FastifyReply) =>
  route(request, fastifyReply(reply));

/** The endpoint as a fastify route handler. */
export const jsonRpcHandler = (hub: Hub, options: RpcRouteOptions) => onFastify(jsonRpcRoute(hub, options));

/**
 * The endpoint at `path`, on fastify and on the app's JSON-RPC lane (http/lane.ts), one route
 * serving both. Only where the app's own error answers hold: a dialect's scope has its own.
 */
export function postJsonRpc(app: FastifyInstance, path: string, hub: Hub, options: RpcRouteOptions): void {
  const route = jsonRpcRoute(hub, options);
  app.post(path, { config: { door: 'jsonrpc' } }, onFastify(route));
  app.jsonRpcLane.post(path, route);
}

/** The endpoint over any request and reply: fastify's, or the JSON-RPC lane's (http/lane.ts). */
export function jsonRpcRoute(hub: Hub, options: RpcRouteOptions) {
  const { publicUrl, logError, bindings, open: streams, door, dispatch } = options;
  return async (request: HttpRequest, reply: HttpReply): Promise<unknown> => {
    const version = requestedVersion(request);
    // The caller's token is checked by answer(), before the method runs or in the method's own statement.
    const caller = await claimedCallerOf(hub, request);
    const who = callerName(caller);
    const base = baseUrl(publicUrl, request);
    let addressed: Door | undefined;
    const call = new RpcCall(
      base,
      reply.raw,
      lastEventIdOf(request).lastEventId,
      () => streams.reserve(who),
      () => publicCard(hub, addressed!, base, bindings),
    );
    const actor = async () => ({ caller, door: (addressed = await door(request)), hubUrl: base });
    const result = await answer(hub, request.body, version, actor, call, dispatch);
    if (result.stream) {
      const { events } = result.stream;
      const { release } = events; // not the stream itself, whose snapshot would then live as long as the stream
      const abort = call.ending();
      reply.hijack();
      const ended = streams.hold(who, abort, caller);
      return writeEventStream(reply.raw, jsonRpcFrames(result.stream.id), events, abort, options.streams).finally(
        () => {
          ended();
          release();
        },
      );
    }
    if (result.error?.code === 'INTERNAL') logError(result.cause, request);
    return reply.send(result.status, result.error ? errorHeaders(result.error) : {}, result.body);
  };
}
