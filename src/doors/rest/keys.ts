/**
 * The hub's signing keys over HTTP: the public keys as a JWKS (receivers check push and forward
 * signatures and Agent Card signatures with them), and their rotation by the admin.
 */
import type { FastifyInstance } from 'fastify';
import type { KeyStatus, Signer } from '../../delivery/signing.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import { callerOf } from '../http/context.js';
import { isoTime } from '../../wire/iso-time.js';

/** Where the JWKS is, relative to the hub's base; cards name it as their `jku`. */
export const JWKS_PATH = '.well-known/jwks.json';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : isoTime(ms));

const keyView = (key: KeyStatus, signing: string) => ({
  kid: key.kid,
  signing: key.kid === signing,
  createdAt: iso(key.createdAt),
  ...(key.retiredAt !== undefined ? { retiredAt: iso(key.retiredAt), publishedUntil: iso(key.publishedUntil) } : {}),
});

export function keyRoutes(app: FastifyInstance, hub: Hub, signer: Signer): void {
  const config = { door: 'rest' as const };

  app.get(`/${JWKS_PATH}`, { config }, async (_request, reply) => {
    // As short as the cards': a verifier that meets a card signed by a new key fetches again soon.
    reply.type('application/json').header('cache-control', 'public, max-age=60');
    return signer.currentJwks();
  });

  app.post('/api/keys/rotate', { config }, async (request) => {
    const caller = await callerOf(hub, request);
    if (caller.kind !== 'admin') {
      throw new HubError(
        caller.kind === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN',
        'Only the admin may rotate the signing keys',
        {
          hint: 'Send Authorization: Bearer <admin token>, or run muster keys rotate --admin-token TOKEN (or MUSTER_ADMIN_TOKEN)',
        },
      );
    }
    const { kid, replaced } = await signer.rotate();
    return { kid, replaced, keys: signer.keys.map((key) => keyView(key, kid)) };
  });
}
