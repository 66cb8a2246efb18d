/**
 * `GET /v1/agents/{handle}/card`: an agent's A2A card as a Vorn client reads it. It is the agent's
 * own 0.3 card at Muster, with `url` at the agent's Vorn endpoint (`/v1/a2a/{handle}`) and Vorn's
 * own members filled from what the hub knows (no `did`: Muster gives agents no DIDs). It is signed
 * with Muster's key, as every card the hub serves, checked against Muster's JWKS: the hub never
 * signs as Vorn nor publishes a key under Vorn's name.
 */
import type { FastifyInstance } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import { publicCard } from '../../doors/a2a/bases.js';
import { legacyCard } from '../../doors/a2a/card.js';
import { CardSigner } from '../../doors/a2a/card-signing.js';
import { baseUrl } from '../../doors/http/context.js';
import { JWKS_PATH } from '../../doors/rest/keys.js';
import type { DialectOptions } from '../dialect.js';

export function cardRoutes(scope: FastifyInstance, hub: Hub, options: DialectOptions): void {
  const signer = new CardSigner(options.signer);
  scope.get('/agents/:handle/card', { config: { door: 'rest' } }, async (request, reply) => {
    const base = baseUrl(options.publicUrl, request);
    const agent = await hub.identity.agent(await hub.identity.handleOf((request.params as { handle: string }).handle));
    const card = legacyCard(await publicCard(hub, { kind: 'agent', handle: agent.handle }, base, options.bindings));
    const endpoint = `${base}v1/a2a/${agent.handle}`;
    const skillIds = card.skills.map((s) => (s as { id: string }).id);
    const vorn = Object.assign(card, {
      url: endpoint,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: endpoint, transport: 'JSONRPC' }],
      declared_capabilities: (agent.skills ?? []).map((s) => s.id),
      advertised_capabilities: skillIds,
      authentication: { schemes: ['bearer'] },
      endpoints: {
        a2a: endpoint,
        card: `${base}v1/agents/${agent.handle}/card`,
        muster: `${base}agents/${agent.handle}/`,
      },
      metadata: { agent_id: agent.id, handle: agent.handle },
    });
    const { body, etag } = await signer.sign(vorn, `${base}${JWKS_PATH}`);
    reply.header('cache-control', 'public, max-age=60').header('etag', etag).type('application/json');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(body);
  });
}
