/**
 * KLYPIX's base, /klypix/: its Agent Card (signed with the hub's key, like every card the hub
 * serves) and its JSON-RPC endpoint, with a not-found answer of its own that says where KLYPIX's
 * routes are. Transport refusals (a body that is not JSON, or over 1 MiB) take the hub's
 * JSON-RPC answer, whose codes are the A2A ones KLYPIX speaks.
 */
import type { FastifyInstance } from 'fastify';
import { CARD_PATH, LEGACY_CARD_PATH } from '../../a2a/card-path.js';
import { CardSigner } from '../../doors/a2a/card-signing.js';
import { jsonRpcHandler } from '../../doors/a2a/rpc-route.js';
import { baseUrl } from '../../doors/http/context.js';
import { JWKS_PATH } from '../../doors/rest/keys.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { DialectOptions } from '../dialect.js';
import { klypixCard } from './card.js';
import { klypixErrorAnswer } from './errors.js';
import { KLYPIX_METHODS, MEMORY_DOOR } from './methods.js';

export const KLYPIX_BASE = 'klypix/';

export function klypixRoutes(scope: FastifyInstance, hub: Hub, options: DialectOptions): void {
  const cards = new CardSigner(options.signer);
  const dispatch = {
    methods: KLYPIX_METHODS,
    methodHint: `KLYPIX answers ${[...KLYPIX_METHODS.keys()].join(', ')}`,
    errorAnswer: klypixErrorAnswer,
  };
  const rpc = jsonRpcHandler(hub, { ...options, door: async () => MEMORY_DOOR, dispatch });
  const config = { door: 'jsonrpc' as const };
  scope.post('/', { config }, rpc);
  for (const path of [CARD_PATH, LEGACY_CARD_PATH]) {
    scope.get(`/${path}`, async (request, reply) => {
      const hubBase = baseUrl(options.publicUrl, request);
      const { body, etag } = await cards.sign(
        klypixCard(hubBase, `${hubBase}${KLYPIX_BASE}`),
        `${hubBase}${JWKS_PATH}`,
      );
      reply.header('cache-control', 'public, max-age=60').header('etag', etag).type('application/json');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(body);
    });
  }
  scope.setNotFoundHandler(async (request, reply) => {
    const error = new HubError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`, {
      hint: `KLYPIX's card is at GET /${KLYPIX_BASE}${CARD_PATH}; its JSON-RPC endpoint is POST /${KLYPIX_BASE}`,
    });
    const answer = klypixErrorAnswer(null, error);
    return reply.code(answer.status).type('application/json').send(answer.body);
  });
}
