import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { once } from 'node:events';
import http from 'node:http';
import { HubError } from '../../errors/hub-error.js';
import type { HttpLimits } from '../../config/index.js';
import type { ProxyTrust } from '../../config/values.js';
import type { Hub } from '../../hub/hub.js';
import { callerLabel, tokenOf } from '../../identity/caller.js';
import { LIMITS } from '../../wire/limits.js';
import { asHubError, errorHeaders, restErrorBody, restStatus } from './errors.js';
import type { HttpRequest } from './exchange.js';
import { parseJsonBody } from './json-body.js';
import { JsonRpcLane } from './lane.js';
import { clientErrorHandler } from './client-errors.js';
import { callerOf, claimedCallerOf } from './context.js';
import { requestGuard } from './guard.js';
import { cutUnusedConnectionsOnStop } from './unused-connections.js';
import type { Logger } from '../../observability/logger.js';
import type { HubMetrics } from '../../observability/metrics.js';
import { logFailure, requestId, requestTracker, type RequestObservers } from './request-log.js';

export interface HttpAppOptions {
  publicUrl: URL | undefined;
  /** Request lines, and unexpected failures (never told to the caller). */
  logger: Logger;
  metrics: HubMetrics;
  /** Whom X-Forwarded-For is taken from: `request.ip`, the address per-address limits count. */
  trustProxy: ProxyTrust;
  /** How long a client may take over its request's headers, its whole request, and an idle connection. */
  httpLimits: HttpLimits;
  /** The JSON-RPC method names the hub knows (the request lines and counts name no other). */
  rpcMethods: RequestObservers['rpcMethods'];
  /** The answer to an error on a JSON-RPC route (`door: 'jsonrpc'`): its status and envelope. */
  jsonRpcError: (error: HubError) => { status: number; body: unknown };
}

const JSON_TYPES = ['application/json', 'application/a2a+json'];

/** How long an oversize body may keep arriving after its 413 before the connection is cut. */
const DRAIN_MS = 2_000;

/**
 * How often node looks for requests past their headers or request limit (default 30 s, so a
 * limit held only to within 30 s): a tenth of the shorter limit, at most a second.
 */
const checkingIntervalMs = ({ headersTimeoutMs, requestTimeoutMs }: HttpLimits): number =>
  Math.max(10, Math.min(1_000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 10)));

/**
 * Node's server options. A request that trickles in is cut off; an answer, a stream's too, is not
 * limited (node counts only until the request has arrived); node checks both together. A request
 * without Host is refused by the guard, in the hub's shape.
 */
const serverOptions = (limits: HttpLimits): http.ServerOptions => ({
  headersTimeout: limits.headersTimeoutMs,
  requestTimeout: limits.requestTimeoutMs,
  connectionsCheckingInterval: checkingIntervalMs(limits),
  requireHostHeader: false,
});

/**
 * The HTTP server every door shares, with no door's routes (src/server/app.ts mounts them). It
 * knows transport concerns only: body limits, JSON parsing, the host/origin guard, the caller's
 * token, request lines, and turning any error into a JSON answer for its door.
 */
export function httpApp(hub: Hub, options: HttpAppOptions): FastifyInstance {
  const limits = options.httpLimits;
  // Made below, with the steps it shares with fastify's hooks; the server hands it requests once listening.
  let lane: JsonRpcLane | undefined;
  const app = Fastify({
    bodyLimit: LIMITS.bodyBytes,
    // The HTTP/1 server fastify would make, with the JSON-RPC lane (lane.ts) offered each request first.
    serverFactory: (handler) => {
      const server = http.createServer(serverOptions(limits), (req, res) => lane?.take(req, res) || handler(req, res));
      server.keepAliveTimeout = limits.keepAliveTimeoutMs;
      return server;
    },
    logger: false,
    // Fastify's own 503 while closing has its own body: the onRequest hook answers in the hub's shape instead.
    return503OnClosing: false,
    // A doubled slash after a base (`/agents/bob//message:send`) reaches the route it would without it.
    routerOptions: { ignoreDuplicateSlashes: true },
    forceCloseConnections: 'idle',
    trustProxy: options.trustProxy,
    // What node's parser refuses, and the timeouts' 408, in the hub's error shape (client-errors.ts).
    clientErrorHandler: clientErrorHandler(limits, options.logger, options.metrics),
    // X-Request-Id: the client's when it is sane, else made here (request-log.ts); echoed on every answer.
    requestIdHeader: false,
    genReqId: requestId,
    // A URL that cannot be decoded gets the hub's error shape, like every other refusal. fastify
    // answers it before any hook, so it is tracked here: one request line and one count, with its id.
    frameworkErrors: (error, request, reply) => {
      track(request, reply as FastifyReply);
      const body = restErrorBody(new HubError('INVALID_REQUEST', `The request URL is malformed: ${error.message}`));
      (reply as FastifyReply).code(400).type('application/json').send(body);
    },
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'string' }, (request, body, done) => {
    try {
      done(null, parseJsonBody(body as string, request.routeOptions.config?.door));
    } catch (e) {
      done(e as Error, undefined);
    }
  });

  const track = requestTracker(app, {
    logger: options.logger,
    metrics: options.metrics,
    rpcMethods: options.rpcMethods,
  });
  const guard = requestGuard(options.publicUrl);
  app.decorateRequest('claimedCaller', null);
  // A request that carries a token must carry a live one, on every route, reads included; a
  // JSON-RPC call's token is checked by its answer (jsonrpc.ts), in the method's own statement when it can.
  const labelCaller = async (request: HttpRequest) => {
    const rpc = request.routeOptions.config?.door === 'jsonrpc';
    request.callerLabel = callerLabel(await (rpc ? claimedCallerOf(hub, request) : callerOf(hub, request)));
  };
  // Set as the hub starts to stop: a request that still arrives on an open connection (fastify
  // marks its answer Connection: close) is sent elsewhere, before any work.
  let stopping = false;
  const unused = cutUnusedConnectionsOnStop(app.server);
  app.addHook('preClose', async () => {
    stopping = true;
    unused.stop();
  });
  // One hook, callback style: most requests finish it without waiting on anything.
  app.addHook('onRequest', (request, reply, done) => {
    track(request, reply);
    if (stopping)
      return done(
        new HubError('UNAVAILABLE', 'The hub is stopping', {
          hint: 'Retry in a few seconds: another node, or this one once restarted, will answer',
          meta: { retryAfterSeconds: '5' },
        }),
      );
    try {
      guard(request);
    } catch (e) {
      return done(e as Error);
    }
    if (request.headers.authorization === undefined) return done();
    labelCaller(request).then(() => done(), done);
  });

  // A request refused for its token counts against its client's address (identity/token-failures.ts),
  // whichever door, route or statement refused it, before the answer goes out; not one whose token
  // was found live during it (a task wait whose token went while it waited: not a guess).
  const countRefusal = async (request: HttpRequest) => {
    const authorization = request.headers.authorization;
    if (!authorization || (await wasLive(request))) return;
    await hub.authentication
      .tokenRefused(authorization, request.ip)
      .catch((e: unknown) => options.logger.warn({ err: e }, 'counting a refused token failed'));
  };
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode === 401) await countRefusal(request);
  });

  /** Any error as its door's answer: a JSON-RPC envelope or a REST body, with its status and headers. */
  const errorAnswer = (error: unknown, request: HttpRequest) => {
    const hubError = asHubError(error);
    if (hubError.code === 'INTERNAL') logFailure(options.logger, error, request);
    const rpc = request.routeOptions.config?.door === 'jsonrpc' ? options.jsonRpcError(hubError) : undefined;
    const body = rpc ? rpc.body : restErrorBody(hubError);
    return {
      status: rpc ? rpc.status : restStatus(hubError),
      headers: errorHeaders(hubError),
      body,
      code: hubError.code,
    };
  };
  app.setErrorHandler(async (error, request, reply) => {
    const answer = errorAnswer(error, request);
    if (answer.code === 'PAYLOAD_TOO_LARGE') await drain(request, reply);
    return reply.headers(answer.headers).code(answer.status).type('application/json').send(answer.body);
  });

  lane = new JsonRpcLane({
    bodyLimit: LIMITS.bodyBytes,
    stopping: () => stopping,
    requestId,
    track,
    guard,
    caller: labelCaller,
    parse: (text) => parseJsonBody(text, 'jsonrpc'),
    errorAnswer,
    refused: countRefusal,
    logError: (error, request) => logFailure(options.logger, error, request),
  });
  app.decorate('jsonRpcLane', lane);
  return app;
}

/** Whether the request's token was found live while it was answered. */
async function wasLive(request: HttpRequest): Promise<boolean> {
  const caller = await request.claimedCaller?.catch(() => undefined);
  return caller !== undefined && tokenOf(caller)?.checked === true;
}

/**
 * Reads and discards the rest of an oversize body before answering, so the client sees the
 * 413 instead of a reset; a body that keeps coming is cut off after a short while.
 */
export async function drain(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('connection', 'close');
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return;
  raw.resume();
  await Promise.race([once(raw, 'end').catch(() => undefined), new Promise((r) => setTimeout(r, DRAIN_MS).unref())]);
}
