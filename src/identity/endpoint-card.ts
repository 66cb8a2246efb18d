/**
 * Reading an agent's own endpoint for its verification: where its card is (the endpoint may be
 * named by its base or by its card's own URL), the card itself, and whether the card carries the
 * hub's challenge (the endpoint-control extension) — so a stock A2A server proves control by
 * configuration alone, without a route written for Muster.
 */
import { CARD_PATH } from '../a2a/card-path.js';
import { isJsonObject } from '../a2a/types.js';

/** The extension an owner puts in its card's `capabilities.extensions` to prove control: `params.challenge` is the hub's challenge. */
export const CONTROL_EXTENSION_URI = 'urn:muster:endpoint-control:v1';

/** Where the 0.2 and early 0.3 servers serve their card, tried when the well-known path has none. */
const OLD_CARD_PATH = '.well-known/agent.json';
const CHALLENGE_PATH = '.well-known/muster-challenge';

export interface EndpointPlaces {
  /** Card URLs to try, in order. */
  cards: string[];
  /** Where the challenge may be served instead of the card carrying it. */
  challenge: string;
}

/** An endpoint named by a URL ending in `.json` is its card's URL; else it is the base, and its card is at the well-known paths. */
export function placesOf(endpoint: string): EndpointPlaces {
  const url = new URL(endpoint);
  if (url.pathname.endsWith('.json')) return { cards: [url.href], challenge: new URL(`/${CHALLENGE_PATH}`, url).href };
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  return {
    cards: [new URL(CARD_PATH, base).href, new URL(OLD_CARD_PATH, base).href],
    challenge: new URL(CHALLENGE_PATH, base).href,
  };
}

/** The extension as the owner copies it into the card. */
export const controlExtension = (challenge: string) => ({
  uri: CONTROL_EXTENSION_URI,
  description: 'Proves to a Muster hub that this agent controls this endpoint',
  params: { challenge },
});

/** Whether the card carries `challenge` in the endpoint-control extension. */
export function cardCarries(card: unknown, challenge: string): boolean {
  const capabilities = isJsonObject(card) ? card['capabilities'] : undefined;
  const extensions =
    isJsonObject(capabilities) && Array.isArray(capabilities['extensions']) ? capabilities['extensions'] : [];
  return extensions.some(
    (e) =>
      isJsonObject(e) &&
      e['uri'] === CONTROL_EXTENSION_URI &&
      isJsonObject(e['params']) &&
      e['params']['challenge'] === challenge,
  );
}
