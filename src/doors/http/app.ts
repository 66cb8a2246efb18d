import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { once } from 'node:events';
import { HubError } from '../../errors/hub-error.js';
import type { HttpLimits, StreamSettings } from '../../config/index.js';
import type { ProxyTrust } from '../../config/values.js';
import type { Hub } from '../../hub/hub.js';
import { LIMITS } from '../../hub/limits.js';
import { a2aRoutes } from '../a2a/routes.js';
import { catalogRoutes } from '../a2a/catalog.js';
import { a2aNoRoute, underA2aBase } from '../a2a/not-found.js';
import { OpenStreams } from './open-streams.js';
import { errorAnswer } from '../a2a/jsonrpc.js';
import { agentRoutes } from '../rest/agents.js';
import { healthRoutes } from '../rest/health.js';
import { statusRoutes } from '../rest/status.js';
import { keyRoutes } from '../rest/keys.js';
import { operatorRoutes } from '../rest/operators.js';
import type { Signer } from '../../delivery/signing.js';
import { taskRoutes } from '../rest/tasks.js';
import { taskWaitRoutes } from '../rest/task-wait.js';
import { forwardedRoutes } from '../rest/forwarded.js';
import { asHubError, errorHeaders, noRoute, notJson, restErrorBody, restStatus } from './errors.js';
import { clientErrorHandler } from './client-errors.js';
import { callerOf, claimedCallerOf } from './context.js';
import { requestGuard } from './guard.js';
import { cutUnusedConnectionsOnStop } from './unused-connections.js';
import type { Logger } from '../../observability/logger.js';
import type { HubMetrics } from '../../observability/metrics.js';
import { callerLabel, logFailure, requestId, requestTracker } from '../../observability/request-log.js';
import { METHODS } from '../a2a/methods.js';
import { metricsRoutes } from '../rest/metrics.js';
import { spaceRoutes } from '../rest/spaces.js';
import { kindReadRoutes } from '../rest/kind-reads.js';
import { mcpRoutes } from '../mcp/http.js';
import type { SessionLimits } from '../mcp/sessions.js';
import { webRoutes } from '../web/routes.js';

export interface AppOptions {
  streams: StreamSettings;
  /** The hub's signing keys: they sign the cards, are published as a JWKS and rotate by the admin. */
  signer: Signer;
  publicUrl: URL | undefined;
  adminTokenFingerprint: string;
  /** Request lines, and unexpected failures (never told to the caller). */
  logger: Logger;
  metrics: HubMetrics;
  /** Who may read GET /metrics. */
  metricsAccess: 'admin' | 'public';
  /** Whom X-Forwarded-For is taken from: `request.ip`, the address per-address limits count. */
  trustProxy: ProxyTrust;
  /** How long a client may take over its request's headers, its whole request, and an idle connection. */
  httpLimits: HttpLimits;
  /** The gRPC binding's port, when it is on (the cards name it). */
  grpcPort?: number | undefined;
  /** The streams of this process, shared with the gRPC binding (made here when not given). */
  openStreams?: OpenStreams;
  /** How many /mcp sessions this node holds, and how long an idle one lives. */
  mcpSessions: SessionLimits;
}

const JSON_TYPES = ['application/json', 'application/a2a+json'];

/** JSON deeper than this is refused before anything walks it recursively. */
const MAX_DEPTH = 64;

/** Recursion stops at MAX_DEPTH + 1 frames, so no body can exhaust the stack here. */
function tooDeep(value: unknown, depth = 1): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > MAX_DEPTH) return true;
  if (Array.isArray(value)) return value.some((item) => tooDeep(item, depth + 1));
  for (const key in value) if (tooDeep((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** How long an oversize body may keep arriving after its 413 before the connection is cut. */
const DRAIN_MS = 2_000;

/**
 * How often node looks for requests past their headers or request limit (default 30 s, so a
 * limit held only to within 30 s): a tenth of the shorter limit, at most a second.
 */
const checkingIntervalMs = ({ headersTimeoutMs, requestTimeoutMs }: HttpLimits): number => Math.max(10, Math.min(1_000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 10)));

/**
 * The HTTP server shared by every door. It knows transport concerns only: body limits, JSON
 * parsing, the host/origin guard, and turning any error into a JSON answer for its door.
 */
export function buildApp(hub: Hub, options: AppOptions): FastifyInstance {
  const limits = options.httpLimits;
  const app = Fastify({
    bodyLimit: LIMITS.bodyBytes,
    logger: false,
    // Fastify's own 503 while closing has its own body: the onRequest hook answers in the hub's shape instead.
    return503OnClosing: false,
    // A doubled slash after a base (`/agents/bob//message:send`) reaches the route it would without it.
    routerOptions: { ignoreDuplicateSlashes: true },
    forceCloseConnections: 'idle',
    trustProxy: options.trustProxy,
    // A request that trickles in is cut off; an answer, a stream's too, is not limited (node counts
    // only until the request has arrived). Both are given to node's constructor, which checks them together.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // requireHostHeader: a request without Host is refused by the guard, in the hub's shape.
    http: { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: checkingIntervalMs(limits), requireHostHeader: false },
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
    let parsed: unknown;
    try {
      parsed = body === '' ? undefined : JSON.parse(body as string);
    } catch (e) {
      return done(notJson(request.routeOptions.config?.door, e), undefined);
    }
    if (tooDeep(parsed)) return done(new HubError('INVALID_REQUEST', `The body nests deeper than ${MAX_DEPTH} levels`, { hint: 'Flatten the data' }), undefined);
    done(null, parsed);
  });

  const track = requestTracker(app, { logger: options.logger, metrics: options.metrics, rpcMethods: METHODS });
  const guard = requestGuard(options.publicUrl);
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
    if (stopping) return done(new HubError('UNAVAILABLE', 'The hub is stopping', { hint: 'Retry in a few seconds: another node, or this one once restarted, will answer', meta: { retryAfterSeconds: '5' } }));
    try {
      guard(request);
    } catch (e) {
      return done(e as Error);
    }
    // A request that carries a token must carry a live one, on every route, reads included; a
    // JSON-RPC call's token is checked by its answer (jsonrpc.ts), in the method's own statement when it can.
    if (request.headers.authorization === undefined) return done();
    const caller = request.routeOptions.config?.door === 'jsonrpc' ? claimedCallerOf(hub, request) : callerOf(hub, request);
    caller.then((caller) => {
      request.callerLabel = callerLabel(caller);
      done();
    }, done);
  });

  // A request refused for its token counts against its client's address (identity/token-failures.ts),
  // whichever door, route or statement refused it, before the answer goes out.
  app.addHook('onSend', async (request, reply) => {
    const authorization = request.headers.authorization;
    if (reply.statusCode !== 401 || !authorization) return;
    await hub.identity.tokenRefused(authorization, request.ip).catch((e: unknown) => options.logger.warn({ err: e }, 'counting a refused token failed'));
  });

  app.setErrorHandler(async (error, request, reply) => {
    const hubError = asHubError(error);
    if (hubError.code === 'INTERNAL') logFailure(options.logger, error, request);
    if (hubError.code === 'PAYLOAD_TOO_LARGE') await drain(request, reply);
    reply.headers(errorHeaders(hubError));
    if (request.routeOptions.config?.door === 'jsonrpc') {
      const rpc = errorAnswer(null, hubError);
      return reply.code(rpc.status).type('application/json').send(rpc.body);
    }
    return reply.code(restStatus(hubError)).type('application/json').send(restErrorBody(hubError));
  });

  // Under an A2A base, an unknown path is answered as that base's HTTP+JSON binding answers.
  app.setNotFoundHandler(async (request, reply) => {
    if (underA2aBase(request.url, hub.kinds.bases)) return reply.code(404).type('application/json').send(a2aNoRoute(request.method, request.url));
    const error = noRoute(request.method, request.url.split('?')[0]!);
    return reply.code(404).type('application/json').send(restErrorBody(error));
  });

  const open = options.openStreams ?? new OpenStreams(hub, options.streams.maxPerCaller, options.metrics);
  a2aRoutes(app, hub, { ...options, open, bindings: { grpcPort: options.grpcPort }, logError: (error, request) => logFailure(options.logger, error, request) });
  catalogRoutes(app, hub, options);
  agentRoutes(app, hub, { ...options, open });
  operatorRoutes(app, hub);
  taskRoutes(app, hub);
  taskWaitRoutes(app, hub, open);
  forwardedRoutes(app, hub);
  spaceRoutes(app, hub, options);
  kindReadRoutes(app, hub);
  healthRoutes(app, hub, options.adminTokenFingerprint);
  statusRoutes(app, hub);
  keyRoutes(app, hub, options.signer);
  metricsRoutes(app, hub, options.metrics, options.metricsAccess);
  mcpRoutes(app, { publicUrl: options.publicUrl, sessions: options.mcpSessions });
  webRoutes(app, hub, { open, streams: options.streams, logError: (error, request) => logFailure(options.logger, error, request) });
  return app;
}

/**
 * Reads and discards the rest of an oversize body before answering, so the client sees the
 * 413 instead of a reset; a body that keeps coming is cut off after a short while.
 */
async function drain(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('connection', 'close');
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return;
  raw.resume();
  await Promise.race([once(raw, 'end').catch(() => undefined), new Promise((r) => setTimeout(r, DRAIN_MS).unref())]);
}
