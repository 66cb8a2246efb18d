import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import { baseUrl } from '../http/context.js';
import { legacyCard, type Bindings, type Card } from './card.js';
import { agentDoor, publicCard, spaceDoor } from './bases.js';
import type { OpenStreams } from '../http/open-streams.js';
import { restBindingRoutes } from './rest-binding.js';
import { CARD_PATH, LEGACY_CARD_PATH } from '../../a2a/card-path.js';
import { cardVersionOf } from './version.js';
import { CardSigner } from './card-signing.js';
import type { Signer } from '../../delivery/signing.js';
import { JWKS_PATH } from '../rest/keys.js';
import { postJsonRpc } from './rpc-route.js';
import type { HttpRequest } from '../http/exchange.js';
import type { StreamSettings } from '../../config/index.js';

/**
 * A card as served: 1.0 when the client asks for 1.0, else 0.3 carrying the 1.0 interfaces too
 * (no version means 0.3), signed, with an ETag over the signed body. An unsupported version is
 * refused in JSON (A2A 1.0 §3.6.2).
 */
async function sendCard(
  request: FastifyRequest,
  reply: FastifyReply,
  cards: CardSigner,
  hubBase: string,
  cardOf: () => Promise<Card>,
) {
  reply.header('vary', 'A2A-Version');
  const version = cardVersionOf(request); // before the card is read: a refused version costs nothing
  const card = await cardOf();
  const shaped = version === '1.0' ? card : legacyCard(card);
  const { body, etag } = await cards.sign(shaped, `${hubBase}${JWKS_PATH}`);
  reply.header('cache-control', 'public, max-age=60').header('etag', etag).type('application/json');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.send(body);
}

/** The A2A door: the hub's base, each agent's, each space's and each kind's own, with their cards and JSON-RPC endpoints. */
export function a2aRoutes(
  app: FastifyInstance,
  hub: Hub,
  options: {
    publicUrl: URL | undefined;
    streams: StreamSettings;
    logError: (error: unknown, request: HttpRequest) => void;
    signer: Signer;
    bindings: Bindings;
    /** Every stream of this process, on every binding. */
    open: OpenStreams;
  },
): void {
  const { publicUrl, logError, bindings, open: streams } = options;
  const cards = new CardSigner(options.signer);
  // Open event streams end when the hub stops; otherwise a shutdown would wait on them forever.
  app.addHook('preClose', async () => streams.endAll());
  const card = async (request: FastifyRequest, reply: FastifyReply, door: Door) => {
    const hubBase = baseUrl(publicUrl, request);
    return sendCard(request, reply, cards, hubBase, () => publicCard(hub, door, hubBase, bindings));
  };
  const named = {
    agent: (request: HttpRequest): Door & { kind: 'agent' } => ({
      kind: 'agent',
      handle: (request.params as { handle: string }).handle,
    }),
    space: (request: HttpRequest): Door & { kind: 'space' } => ({
      kind: 'space',
      name: (request.params as { name: string }).name,
    }),
  };
  const agentOf = (request: HttpRequest) => agentDoor(hub, named.agent(request).handle);
  const spaceOf = (request: HttpRequest) => spaceDoor(hub, named.space(request).name);

  // Each base: its card (whose reading checks the base exists) at the well-known path and at the
  // 0.2 one, its JSON-RPC endpoint (with and without the slash), its HTTP+JSON binding.
  const mount = (
    path: string,
    door: (request: HttpRequest) => Promise<Door>,
    cardOf: (request: HttpRequest) => Door,
    cardConfig: 'rest' | undefined,
  ) => {
    for (const cardPath of [CARD_PATH, LEGACY_CARD_PATH]) {
      app.get(`/${path}${cardPath}`, cardConfig ? { config: { door: cardConfig } } : {}, (request, reply) =>
        card(request, reply, cardOf(request)),
      );
    }
    postJsonRpc(app, `/${path}`, hub, { ...options, door });
    if (path !== '') postJsonRpc(app, `/${path.slice(0, -1)}`, hub, { ...options, door });
    restBindingRoutes(app, hub, { path, door, publicUrl, bindings, streams, settings: options.streams, logError });
  };
  const fixed = (door: Door) => [async () => door, () => door] as const;
  mount('', ...fixed({ kind: 'hub' }), undefined);
  mount('agents/:handle/', agentOf, named.agent, 'rest');
  mount('spaces/:name/', spaceOf, named.space, 'rest');
  // The bases kinds bring of their own (the memory base), each with its card.
  for (const base of hub.kinds.bases) mount(`${base.name}/`, ...fixed({ kind: 'base', name: base.name }), undefined);
}
