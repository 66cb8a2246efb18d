/**
 * Signed Agent Cards (A2A §8.4). Each card carries `signatures`: a JWS whose protected header
 * names `alg` (EdDSA), `typ`, `kid` and `jku` (the hub's JWKS), over the card in RFC 8785 form
 * without `signatures`. The card served is exactly the card signed: a verifier strips
 * `signatures`, canonicalizes what is left and checks.
 *
 * The 1.0 cards are built with no default-valued members, so their RFC 8785 form is also what a
 * verifier that first normalizes to the 1.0 schema (the @a2a-js/sdk one) computes: one JWS serves
 * both. A 0.3 card has members outside the 1.0 schema (`url`, `preferredTransport`, …), which such a
 * verifier drops; it gets a second JWS over that projection. The first JWS always covers the
 * whole card.
 *
 * Cards are fetched often and change rarely: the served body is kept per distinct card, JWKS URL
 * and signing key, so each is signed once. It is derived data, safe to hold on every node.
 */
import { createHash } from 'node:crypto';
import { canonicalizeAgentCard, type AgentCard } from '@a2a-js/sdk';
import canonicalize from 'canonicalize';
import { LRUCache } from 'lru-cache';
import type { Signer } from '../../delivery/signing.js';

export interface SignedCard {
  /** The card's JSON, `signatures` included, as served. */
  body: string;
  /** A strong ETag over exactly that body. */
  etag: string;
}

/** Cards kept signed: one per agent, space and base, in two shapes; beyond this the least used are signed again when asked. */
const KEPT_CARDS = 2_000;

export class CardSigner {
  private readonly signed = new LRUCache<string, Promise<SignedCard>>({ max: KEPT_CARDS });

  constructor(private readonly signer: Signer) {}

  /** The card with its signatures, `jku` naming the JWKS that holds the key. */
  sign(card: object, jku: string): Promise<SignedCard> {
    const cacheKey = `${this.signer.kid}\n${jku}\n${JSON.stringify(card)}`;
    let signed = this.signed.get(cacheKey);
    if (!signed) {
      signed = this.make(card, jku);
      this.signed.set(cacheKey, signed);
      signed.catch(() => this.signed.delete(cacheKey));
    }
    return signed;
  }

  private async make(card: object, jku: string): Promise<SignedCard> {
    const whole = canonicalize(card);
    if (whole === undefined) throw new Error('A card must be a JSON object');
    const projected = canonicalizeAgentCard(card as AgentCard);
    const payloads = projected === whole ? [whole] : [whole, projected];
    const signatures = await Promise.all(payloads.map((payload) => this.signer.sign(payload, jku)));
    const body = JSON.stringify({ ...card, signatures });
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
  }
}
