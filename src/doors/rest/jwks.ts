import type { FastifyInstance } from 'fastify';
import type { Signer } from '../../delivery/signing.js';

/** The hub's public signing keys, so receivers can check Muster-Signature on pushes and forwards. */
export function jwksRoutes(app: FastifyInstance, signer: Signer): void {
  app.get('/.well-known/jwks.json', { config: { door: 'rest' } }, async (_request, reply) => {
    reply.type('application/json').header('cache-control', 'public, max-age=300');
    return signer.jwks();
  });
}
