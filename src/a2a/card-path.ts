/** Where every base serves its Agent Card, relative to the base (A2A's well-known path). */
export const CARD_PATH = '.well-known/agent-card.json';
