/**
 * The A2A bases, named the ways the bindings name them: by path (JSON-RPC and HTTP+JSON mount
 * each base at its own URL) or by `tenant` (gRPC has one address, and a call names its base in
 * the request's tenant field: '' the hub, `agents/{handle}`, `spaces/{name}`, or a kind's base
 * such as `memory`). Each base's public card is made here for every binding.
 */
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import { agentCard, hubCard, kindBaseCard, spaceCard, type Bindings, type Card } from './card.js';

/** The door of an agent's base: the agent must exist. */
export async function agentDoor(hub: Hub, handle: string): Promise<Door> {
  await hub.identity.requireAgent(handle);
  return { kind: 'agent', handle };
}

/** The door of a space's base: the space must exist. */
export async function spaceDoor(hub: Hub, name: string): Promise<Door> {
  await hub.spaces.require(name);
  return { kind: 'space', name };
}

/** The base a gRPC call's tenant names. */
export async function tenantDoor(hub: Hub, tenant: string): Promise<Door> {
  const path = tenant.replace(/^\/+|\/+$/g, '');
  if (path === '') return { kind: 'hub' };
  const [first, second, ...rest] = path.split('/');
  if (first === 'agents' && second && rest.length === 0) return agentDoor(hub, second);
  if (first === 'spaces' && second && rest.length === 0) return spaceDoor(hub, second);
  if (second === undefined && hub.kinds.bases.some((b) => b.name === first)) return { kind: 'base', name: first! };
  throw new HubError('NOT_FOUND', `No A2A base '${tenant}' at this hub`, {
    hint: `Set tenant to '' (the hub), 'agents/{handle}', 'spaces/{name}'${hub.kinds.bases.map((b) => ` or '${b.name}'`).join('')}, as the card's GRPC interface names it`,
  });
}

/** The public card of a base, as its `.well-known/agent-card.json` serves it (before signing). */
export async function publicCard(hub: Hub, door: Door, hubBase: string, bindings: Bindings): Promise<Card> {
  switch (door.kind) {
    case 'hub':
      return hubCard(hubBase, hub.kinds.cardSkills('hub', ''), bindings);
    case 'agent':
      return agentCard(
        hubBase,
        await hub.identity.agent(door.handle),
        hub.kinds.cardSkills('agent', door.handle),
        bindings,
      );
    case 'space':
      return spaceCard(
        hubBase,
        await hub.spaces.require(door.name),
        hub.kinds.cardSkills('space', door.name),
        bindings,
      );
    case 'base': {
      const base = hub.kinds.bases.find((b) => b.name === door.name);
      if (!base) throw new HubError('NOT_FOUND', `No base '${door.name}'`);
      return kindBaseCard(hubBase, base, hub.kinds.cardSkills('base', door.name), bindings);
    }
  }
}
