/**
 * The entries of the hub's AI Catalog (catalog.ts), one shape for each base it lists, and for the
 * directory's search registry (catalog-search.ts), whose results are the same agent entries.
 */
import { CARD_PATH } from '../../a2a/card-path.js';
import type { AgentRecord, SpaceRecord } from '../../store/store.js';
import { isoTime } from '../../wire/iso-time.js';
import type { KindBase } from '../../hub/kind.js';
import { agentCard, hubCard, kindBaseCard, spaceCard } from './card.js';

export const CARD_TYPE = 'application/a2a-agent-card+json';
export const REGISTRY_TYPE = 'application/ai-registry+json';

export interface CatalogEntry {
  identifier: string;
  type: string;
  url: string;
  displayName?: string;
  description?: string;
  tags?: string[];
  updatedAt?: string;
}

/** A base as a catalog entry: its base URL identifies it, its card is the artifact. */
const base = (
  baseUrl: string,
  card: { name: string; description: string },
  tags: string[],
  updatedAt?: number,
): CatalogEntry => ({
  identifier: baseUrl,
  type: CARD_TYPE,
  url: `${baseUrl}${CARD_PATH}`,
  displayName: card.name,
  description: card.description,
  tags,
  ...(updatedAt !== undefined ? { updatedAt: isoTime(updatedAt) } : {}),
});

export const hubEntry = (hubBase: string) => base(hubBase, hubCard(hubBase, []), ['hub']);
/** A base a kind brings (memory). */
export const kindBaseEntry = (hubBase: string, kindBase: KindBase) =>
  base(`${hubBase}${kindBase.name}/`, kindBaseCard(hubBase, kindBase, []), [kindBase.name]);
export const agentEntry = (hubBase: string, agent: AgentRecord) =>
  base(`${hubBase}agents/${agent.handle}/`, agentCard(hubBase, agent, []), ['agent', ...(agent.tags ?? [])]);
export const spaceEntry = (hubBase: string, space: SpaceRecord) =>
  base(`${hubBase}spaces/${space.name}/`, spaceCard(hubBase, space, []), ['space'], space.updatedAt);

/** The registry's own entry in the catalog: its base URL, under which POST search answers. */
export const registryEntry = (hubBase: string): CatalogEntry => ({
  identifier: `${hubBase}search`,
  type: REGISTRY_TYPE,
  url: hubBase,
  displayName: 'Muster directory',
  description: "Search this hub's agents by what they do: POST search (Agentic Resource Discovery v0.9).",
  tags: ['registry', 'search', 'directory'],
});
