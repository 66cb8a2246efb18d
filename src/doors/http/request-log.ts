/**
 * What the hub keeps of each HTTP request: its id (the client's X-Request-Id when sane, else one
 * of the hub's), its log line and its count in the metrics, written when the answer is done, and
 * the failures a caller was not told the cause of.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { HttpRequest } from './exchange.js';
import type { Logger } from '../../observability/logger.js';
import type { DoorLabel, HubMetrics } from '../../observability/metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request, for the log: an agent's handle, 'operator:<handle>', 'admin' or 'anonymous' (never the token). */
    callerLabel: string;
  }
}

/** An id a client may choose for its request: short, and safe to print anywhere. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What the ids the hub makes start with: 72 random bits per process, so two hubs (or two runs of
 * one) do not make the same id; a count follows. A quarter of a uuid's cost (0.06 µs against
 * 0.25), and a shorter header for Node to check on every answer.
 */
const MADE_PREFIX = `${randomBytes(9).toString('base64url')}-`;
let made = 0;

/** A new request id of the hub's. */
export const newRequestId = (): string => MADE_PREFIX + (++made).toString(36);

/** fastify's genReqId: the client's X-Request-Id when it is sane, else a new one of the hub's. */
export function requestId(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && SANE_ID.test(given) ? given : newRequestId();
}

export interface RequestObservers {
  logger: Logger;
  metrics: HubMetrics;
  /** The JSON-RPC method names the hub knows: any other is counted as 'unknown'. */
  rpcMethods: { has(name: string): boolean };
}

const NO_ROUTE = '(no route)';
const ANONYMOUS = 'anonymous';
const kRequest = Symbol('muster.request');
const kStart = Symbol('muster.start');
const kOnSocket = Symbol('muster.onSocket');
/** `kOnSocket`: the status of an answer the hub wrote on the bare socket (client-errors.ts), not through this response. */
type Tracked = ServerResponse & { [kRequest]: HttpRequest; [kStart]: number; [kOnSocket]?: number };

/** The id of the request `res` answers, when the tracker has seen it. */
export const trackedRequestId = (res: ServerResponse): string | undefined => (res as Partial<Tracked>)[kRequest]?.id;

/**
 * The hub answered the request of `res` on its socket (a framing error or timeout in the middle
 * of the request): its one line and count carry `status`, not 'aborted'. False when the tracker
 * has not seen the request.
 */
export function answeredOnSocket(res: ServerResponse, status: number): boolean {
  if (!(kRequest in res)) return false;
  (res as Tracked)[kOnSocket] = status;
  return true;
}

/** The route's pattern and door; fastify builds `routeOptions` afresh on each read, so it is read once. */
function routeOf(request: HttpRequest): { route: string; door: DoorLabel } {
  const { url, config } = request.routeOptions;
  return { route: url ?? NO_ROUTE, door: config?.door === 'jsonrpc' ? 'jsonrpc' : 'rest' };
}

/** The socket went away before the answer was complete: the client's doing, not a failure of ours. */
const clientGone = (request: HttpRequest): boolean => request.raw.aborted || request.raw.socket?.destroyed === true;

/**
 * One log line and one count per request, written when its answer is done (a stream's too),
 * and the X-Request-Id on every answer. A client that leaves before the answer is one info line.
 * Answers the tracker the app's one onRequest hook calls first (a hook of its own costs each
 * request a pass of fastify's hook runner), and the app's frameworkErrors too, for the requests
 * fastify refuses before any hook runs (a URL it cannot decode). The close listener is one
 * function for all requests; each answer only carries its request and start.
 */
export function requestTracker(
  app: FastifyInstance,
  { logger, metrics, rpcMethods }: RequestObservers,
): (request: HttpRequest, reply: { raw: ServerResponse }) => void {
  app.decorateRequest('callerLabel', ANONYMOUS);
  const logsRequests = logger.isLevelEnabled('info');
  const methodOf = (request: HttpRequest, door: DoorLabel, route: string): string => {
    if (door === 'rest') return `${request.method} ${route}`;
    const name = (request.body as { method?: unknown } | undefined)?.method;
    return typeof name === 'string' && rpcMethods.has(name) ? name : 'unknown';
  };

  function answered(this: Tracked): void {
    const request = this[kRequest];
    const ms = Math.round((performance.now() - this[kStart]) * 100) / 100;
    const { route, door } = routeOf(request);
    const method = methodOf(request, door, route);
    const status = this.writableFinished ? this.statusCode : (this[kOnSocket] ?? 'aborted');
    const finished = status !== 'aborted';
    metrics.request(door, method, status, ms / 1000);
    if (!logsRequests) return;
    // pino leaves out undefined fields: `rpc` appears on the JSON-RPC door only, `status` on a finished answer.
    // A request fastify refused before its hooks (frameworkErrors) is not of the decorated class: no callerLabel.
    const line = {
      reqId: request.id,
      method: request.method,
      route,
      rpc: door === 'jsonrpc' ? method : undefined,
      status: finished ? status : undefined,
      caller: request.callerLabel ?? ANONYMOUS,
      ms,
    };
    logger.info(line, finished ? 'request' : 'client closed the connection before the answer');
  }

  return (request, reply) => {
    const res = reply.raw as Tracked;
    res.setHeader('x-request-id', request.id); // on the raw answer, so streams (hijacked replies) carry it too
    res[kRequest] = request;
    res[kStart] = performance.now();
    res.on('close', answered); // an answer closes once; `on` spares the wrapper `once` would make
  };
}

/** Reports a failure the caller was not told the cause of; nothing when the client had already gone. */
export function logFailure(logger: Logger, error: unknown, request: HttpRequest): void {
  if (clientGone(request)) return; // its request line says so
  logger.error(
    { reqId: request.id, method: request.method, route: routeOf(request).route, err: error },
    'request failed',
  );
}
