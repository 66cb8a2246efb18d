import type { FastifyInstance } from 'fastify';
import type { HttpRequest } from '../doors/http/exchange.js';
import type { StreamSettings } from '../config/index.js';
import type { Hub } from '../hub/hub.js';
import type { Signer } from '../delivery/signing.js';
import { logFailure } from '../doors/http/request-log.js';
import { httpApp, type HttpAppOptions } from '../doors/http/app.js';
import { noRoute, restErrorBody } from '../doors/http/errors.js';
import { OpenStreams } from '../doors/http/open-streams.js';
import { a2aRoutes } from '../doors/a2a/routes.js';
import { catalogRoutes } from '../doors/a2a/catalog.js';
import { catalogSearchRoutes } from '../doors/a2a/catalog-search.js';
import { a2aNoRoute, underA2aBase } from '../doors/a2a/not-found.js';
import { errorAnswer } from '../doors/a2a/jsonrpc.js';
import { METHODS } from '../doors/a2a/methods.js';
import { agentRoutes } from '../doors/rest/agents.js';
import { healthRoutes } from '../doors/rest/health.js';
import { frontDoor, frontDoorRoutes } from '../doors/rest/front-door.js';
import { statusRoutes } from '../doors/rest/status.js';
import { keyRoutes } from '../doors/rest/keys.js';
import { operatorRoutes } from '../doors/rest/operators.js';
import { taskRoutes } from '../doors/rest/tasks.js';
import { taskWaitRoutes } from '../doors/rest/task-wait.js';
import { forwardedRoutes } from '../doors/rest/forwarded.js';
import { metricsRoutes } from '../doors/rest/metrics.js';
import { spaceRoutes } from '../doors/rest/spaces.js';
import { spaceWhyRoutes } from '../doors/rest/space-why.js';
import { kindReadRoutes } from '../doors/rest/kind-reads.js';
import { mcpRoutes } from '../doors/mcp/http.js';
import type { SessionLimits } from '../doors/mcp/sessions.js';
import { webRoutes } from '../doors/web/routes.js';
import type { FeedKind } from '../doors/web/feed-kind.js';
import type { KindClient } from '../kinds/kind-client.js';
import { DIALECTS } from '../dialects/index.js';

export interface AppOptions extends Omit<HttpAppOptions, 'rpcMethods' | 'jsonRpcError'> {
  streams: StreamSettings;
  /** The hub's signing keys: they sign the cards, are published as a JWKS and rotate by the admin. */
  signer: Signer;
  adminTokenFingerprint: string;
  /** Who may read GET /metrics. */
  metricsAccess: 'admin' | 'public';
  /** The gRPC binding's port, when it is on (the cards name it). */
  grpcPort?: number | undefined;
  /** The streams of this process, shared with the gRPC binding (made here when not given). */
  openStreams?: OpenStreams;
  /** How many /mcp sessions this node holds, and how long an idle one lives. */
  mcpSessions: SessionLimits;
  /** The kinds' parts of the web feed (src/kinds/server.ts), in the order of their sections. */
  feeds: readonly FeedKind[];
  /** The kinds' client halves (src/kinds/client.ts), whose MCP tools /mcp serves. */
  clients: readonly KindClient[];
}

/**
 * The hub's HTTP app: the plumbing every door shares (doors/http/app.ts) with every HTTP door
 * mounted on it (A2A JSON-RPC and HTTP+JSON, the REST API, MCP, the web feed), and the answer
 * to a path none of them has.
 */
export function buildApp(hub: Hub, options: AppOptions): FastifyInstance {
  const app = httpApp(hub, { ...options, rpcMethods: METHODS, jsonRpcError: (error) => errorAnswer(null, error) });

  // Under an A2A base, an unknown path is answered as that base's HTTP+JSON binding answers.
  app.setNotFoundHandler(async (request, reply) => {
    if (underA2aBase(request.url, hub.kinds.bases))
      return reply.code(404).type('application/json').send(a2aNoRoute(request.method, request.url));
    const error = noRoute(request.method, request.url.split('?')[0]!);
    return reply.code(404).type('application/json').send(restErrorBody(error));
  });

  const open =
    options.openStreams ?? new OpenStreams(hub, options.streams.maxPerCaller, options.metrics, options.logger);
  a2aRoutes(app, hub, {
    ...options,
    open,
    bindings: { grpcPort: options.grpcPort },
    logError: (error, request) => logFailure(options.logger, error, request),
  });
  catalogRoutes(app, hub, options);
  catalogSearchRoutes(app, hub, options);
  agentRoutes(app, hub, { ...options, open });
  operatorRoutes(app, hub);
  taskRoutes(app, hub);
  taskWaitRoutes(app, hub, open);
  forwardedRoutes(app, hub);
  spaceRoutes(app, hub, options);
  spaceWhyRoutes(app, hub);
  kindReadRoutes(app, hub);
  healthRoutes(app, hub, options.adminTokenFingerprint);
  frontDoorRoutes(app);
  statusRoutes(app, hub);
  keyRoutes(app, hub, options.signer);
  metricsRoutes(app, hub, options.metrics, options.metricsAccess);
  // Each seed dialect in a scope of its own: its error handler and not-found answer hold under its prefix only.
  const dialectOptions = {
    publicUrl: options.publicUrl,
    signer: options.signer,
    open,
    streams: options.streams,
    bindings: { grpcPort: options.grpcPort },
    logError: (error: unknown, request: HttpRequest) => logFailure(options.logger, error, request),
  };
  for (const dialect of DIALECTS)
    void app.register(async (scope) => dialect.routes(scope, hub, dialectOptions), { prefix: dialect.prefix });
  mcpRoutes(app, { publicUrl: options.publicUrl, sessions: options.mcpSessions, kinds: options.clients });
  webRoutes(app, hub, {
    kinds: options.feeds,
    open,
    streams: options.streams,
    logError: (error, request) => logFailure(options.logger, error, request),
    index: frontDoor(options.publicUrl),
  });
  return app;
}
