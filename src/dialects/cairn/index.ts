/**
 * The Cairn dialect at /cairn/ (docs/dialects.md): Cairn's card, its JSON-RPC methods on review
 * tasks, and its older HTTP routes, over the hub's operations and the review and open-call kinds.
 * Errors on its HTTP routes carry Cairn's `error` object (errors.ts); its JSON-RPC routes answer
 * JSON-RPC errors, and anything this scope does not shape goes on to the hub's own handler.
 */
import type { FastifyInstance } from 'fastify';
import { asHubError, errorHeaders } from '../../doors/http/errors.js';
import { HubError } from '../../errors/hub-error.js';
import type { Dialect } from '../dialect.js';
import { cairnErrorBody } from './errors.js';
import { rpcRoutes } from './rpc.js';
import { callRoutes } from './rest-calls.js';
import { taskRoutes } from './rest-tasks.js';

const ROUTES =
  'GET .well-known/agent-card.json; JSON-RPC POST / or api/a2a; api/a2a-tasks, api/a2a-tasks/{id}, api/a2a-tasks/mine, api/a2a-calls, api/a2a-calls/{id}, api/agent/register';

function errorAnswers(scope: FastifyInstance): void {
  scope.setErrorHandler((error, request, reply) => {
    const hubError = asHubError(error);
    // JSON-RPC routes, a body too large (drained first) and an internal failure (logged): the hub's handler answers them.
    if (
      request.routeOptions.config?.door !== 'rest' ||
      hubError.code === 'PAYLOAD_TOO_LARGE' ||
      hubError.code === 'INTERNAL'
    )
      throw error;
    const { status, body } = cairnErrorBody(hubError);
    reply.headers(errorHeaders(hubError));
    return reply.code(status).type('application/json').send(body);
  });
  scope.setNotFoundHandler((request, reply) => {
    const missing = new HubError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`, {
      hint: `Cairn's routes here: ${ROUTES}`,
    });
    const { status, body } = cairnErrorBody(missing);
    return reply.code(status).type('application/json').send(body);
  });
}

export const cairn: Dialect = {
  seed: 'Cairn',
  prefix: '/cairn',
  routes: (scope, hub, options) => {
    errorAnswers(scope);
    rpcRoutes(scope, hub, options);
    taskRoutes(scope, hub, options);
    callRoutes(scope, hub, options);
  },
};
