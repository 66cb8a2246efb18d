/**
 * The Vorn dialect at /v1/ (docs/dialects.md): Vorn's A2A API over the direct kind. Agents'
 * JSON-RPC endpoints and the platform's directory (rpc.ts), agents' cards (card.ts), the inbox
 * and sent lists (mailbox.ts), one task and its respond (tasks.ts), and forwarding to an agent's
 * own endpoint (forwarding.ts); every refusal in Vorn's words (errors.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { HttpRequest } from '../../doors/http/exchange.js';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import { agentDoor } from '../../doors/a2a/bases.js';
import { jsonRpcHandler } from '../../doors/a2a/rpc-route.js';
import { drain } from '../../doors/http/app.js';
import { errorHeaders } from '../../doors/http/errors.js';
import { HubError } from '../../errors/hub-error.js';
import type { Dialect, DialectOptions } from '../dialect.js';
import { cardRoutes } from './card.js';
import { hubErrorOf, vornRestError, vornRpcError } from './errors.js';
import { forwardingRoutes } from './forwarding.js';
import { mailboxRoutes } from './mailbox.js';
import { AGENT_DISPATCH, PLATFORM_DISPATCH } from './rpc.js';
import { taskRoutes } from './tasks.js';

/** The agent an endpoint's path names, by handle or agent id; it must exist (else HTTP 404). */
const agentOf = async (hub: Hub, request: HttpRequest): Promise<Door> =>
  agentDoor(hub, await hub.identity.handleOf((request.params as { handle: string }).handle));

const ROUTES_HINT =
  'Vorn routes: POST /v1/a2a, POST /v1/a2a/{handle}, GET /v1/agents/{handle}/card, GET /v1/a2a/inbox, GET /v1/a2a/sent, GET /v1/a2a/tasks/{id}, POST /v1/a2a/tasks/{id}/respond, GET and PUT /v1/a2a/agents/{agent_id}/forwarding';

function routes(scope: FastifyInstance, hub: Hub, options: DialectOptions): void {
  scope.setErrorHandler(async (error, request, reply) => {
    const hubError = hubErrorOf(error);
    if (hubError.code === 'INTERNAL') options.logError(error, request);
    if (hubError.code === 'PAYLOAD_TOO_LARGE') await drain(request, reply);
    reply.headers(errorHeaders(hubError));
    const jsonRpc = request.routeOptions.config?.door === 'jsonrpc';
    const { status, body } = jsonRpc ? vornRpcError(null, hubError) : vornRestError(error);
    return reply.code(status).type('application/json').send(body);
  });
  scope.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const { status, body } = vornRestError(
      new HubError('ROUTE_NOT_FOUND', `No route ${request.method} ${path}`, { hint: ROUTES_HINT }),
    );
    return reply.code(status).type('application/json').send(body);
  });

  const config = { door: 'jsonrpc' as const };
  const platform = jsonRpcHandler(hub, {
    ...options,
    door: async () => ({ kind: 'hub' }),
    dispatch: PLATFORM_DISPATCH,
  });
  const agent = jsonRpcHandler(hub, { ...options, door: (r) => agentOf(hub, r), dispatch: AGENT_DISPATCH });
  scope.post('/a2a', { config }, platform);
  scope.post('/a2a/:handle', { config }, agent);
  cardRoutes(scope, hub, options);
  mailboxRoutes(scope, hub);
  taskRoutes(scope, hub);
  forwardingRoutes(scope, hub);
}

export const vorn: Dialect = { seed: 'Vorn', prefix: '/v1', routes };
