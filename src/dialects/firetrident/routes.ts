/**
 * The colony's routes under /api/colonies/{space}/: its card, its JSON-RPC endpoint (the A2A
 * door's route over the colony's own methods and error table), its REST routes, and a JSON 404
 * for anything else there. A colony that does not exist answers 404 on every route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpRequest } from '../../doors/http/exchange.js';
import { legacyCard } from '../../doors/a2a/card.js';
import { CardSigner } from '../../doors/a2a/card-signing.js';
import { jsonRpcHandler } from '../../doors/a2a/rpc-route.js';
import { checkVersion, requestedVersion } from '../../doors/a2a/version.js';
import { baseUrl } from '../../doors/http/context.js';
import { asHubError, errorHeaders, restErrorBody } from '../../doors/http/errors.js';
import { JWKS_PATH } from '../../doors/rest/keys.js';
import { isJsonObject } from '../../a2a/types.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { DialectOptions } from '../dialect.js';
import { colonyCard } from './card.js';
import { FIRETRIDENT_ERRORS, fireErrorAnswer } from './errors.js';
import { JSONRPC_ERRORS } from '../../doors/a2a/jsonrpc-errors.js';
import { FIRETRIDENT_DISPATCH } from './methods.js';
import { colonyRestRoutes } from './rest.js';

const ROUTES =
  'A colony answers GET .well-known/agent-card.json, POST a2a (JSON-RPC), POST intents, GET intents/{id}, POST intents/{id}/withdraw and GET why?path=, under /api/colonies/{colony}/';

const colonyOf = (request: HttpRequest) => (request.params as { space: string }).space;

export function colonyRoutes(scope: FastifyInstance, hub: Hub, options: DialectOptions): void {
  const cards = new CardSigner(options.signer);

  // The card: 1.0 unless the client asks for 0.3 (the colony's clients read the 1.0 card), signed like every card.
  scope.get('/.well-known/agent-card.json', { config: { door: 'rest' } }, async (request, reply) => {
    const version = requestedVersion(request);
    checkVersion(version);
    const space = await hub.spaces.require(colonyOf(request));
    const hubBase = baseUrl(options.publicUrl, request);
    const card = colonyCard(hubBase, space);
    const { body, etag } = await cards.sign(
      version?.startsWith('0.3') ? legacyCard(card) : card,
      `${hubBase}${JWKS_PATH}`,
    );
    reply.header('vary', 'A2A-Version').header('cache-control', 'public, max-age=60').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('application/json').send(body);
  });

  const rpc = jsonRpcHandler(hub, {
    ...options,
    door: async (request) => ({ kind: 'space', name: colonyOf(request) }),
    dispatch: FIRETRIDENT_DISPATCH,
  });
  scope.post('/a2a', { config: { door: 'jsonrpc' } }, async (request: FastifyRequest, reply: FastifyReply) => {
    // A colony that does not exist is 404 whatever is asked of it, before the request is read.
    const missing = await hub.spaces.require(colonyOf(request)).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (missing === undefined) return rpc(request, reply);
    const body = request.body;
    const id =
      isJsonObject(body) && (typeof body['id'] === 'string' || typeof body['id'] === 'number') ? body['id'] : null;
    const answer = fireErrorAnswer(id, missing);
    return reply.code(answer.status).type('application/json').send(answer.body);
  });

  colonyRestRoutes(scope, hub, options.publicUrl);

  // A refusal made before the method runs (a dead token, checked as the request comes in) is
  // answered from the colony's table where it differs from the A2A door's; the rest as there.
  scope.setErrorHandler(async (thrown, request, reply) => {
    const error = asHubError(thrown);
    if (
      request.routeOptions.config?.door !== 'jsonrpc' ||
      FIRETRIDENT_ERRORS[error.code] === JSONRPC_ERRORS[error.code]
    )
      throw thrown;
    const answer = fireErrorAnswer(null, error);
    return reply.code(answer.status).headers(errorHeaders(error)).type('application/json').send(answer.body);
  });

  scope.setNotFoundHandler(async (request, reply) => {
    const error = new HubError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`, {
      hint: ROUTES,
    });
    return reply.code(404).type('application/json').send(restErrorBody(error));
  });
}
