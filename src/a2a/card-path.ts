/** Where every base serves its Agent Card, relative to the base (A2A's well-known path). */
export const CARD_PATH = '.well-known/agent-card.json';

/** The path A2A 0.2 and early 0.3 clients fetch the card from; the same card is served there. */
export const LEGACY_CARD_PATH = '.well-known/agent.json';
