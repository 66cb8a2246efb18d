/**
 * Agent Cards in the A2A 1.0 shape: the hub's own, one per agent, one per space and one per base
 * a kind brings (the memory base). They are signed when served (card-signing.ts), so no member holds a default or empty
 * value. Each names its JSON-RPC URL (the base itself) twice, for protocol 1.0 and 0.3 (the
 * method name picks the shapes), its HTTP+JSON URL (the base again: the binding's paths hang
 * off it), and, when the gRPC port is on, the gRPC address with the base as its `tenant`.
 * The skills come from the kinds that open tasks at that kind of base.
 */
import { HUB_BASE_SKILLS } from '../../hub/hub-skills.js';
import type { KindBase } from '../../hub/kind.js';
import type { CardSkill } from '../../hub/kind-module.js';
import { inputModesOf, outputModesOf } from '../../identity/media-modes.js';
import type { AgentRecord, SpaceRecord } from '../../store/store.js';
import { VERSION } from '../../version.js';

export interface Capabilities {
  streaming: boolean;
  pushNotifications: boolean;
}

const CAPABILITIES: Capabilities = { streaming: true, pushNotifications: true };

/** The bindings a hub serves beside JSON-RPC and HTTP+JSON: the gRPC port, when it is on. */
export interface Bindings {
  grpcPort?: number | undefined;
}

/** A gRPC call names its base by `tenant`: '' is the hub, else the base's path without its slash (`agents/bob`). */
export const tenantOf = (hubBase: string, base: string): string => base.slice(hubBase.length).replace(/\/$/, '');

interface AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

function interfaces(hubBase: string, base: string, bindings: Bindings): AgentInterface[] {
  const list: AgentInterface[] = [
    { url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: base, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: base, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ];
  if (bindings.grpcPort !== undefined) {
    const tenant = tenantOf(hubBase, base);
    // A signed card holds no empty member: the hub's own base (tenant '') names none.
    list.push({
      url: `${new URL(hubBase).hostname}:${bindings.grpcPort}`,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      ...(tenant ? { tenant } : {}),
    });
  }
  return list;
}

function common(
  hubBase: string,
  base: string,
  name: string,
  description: string,
  skills: object[],
  bindings: Bindings,
  schemeDescription = 'An agent token from POST /api/agents; reads of public things need none',
) {
  return {
    name,
    description,
    supportedInterfaces: interfaces(hubBase, base, bindings),
    provider: { organization: 'Muster hub', url: hubBase },
    version: VERSION,
    // GetExtendedAgentCard answers a registered caller (operations/extended-card.ts).
    capabilities: Object.assign({}, CAPABILITIES, { extendedAgentCard: true }) as Capabilities & {
      extendedAgentCard: boolean;
      extensions?: unknown[];
    },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: schemeDescription } },
    },
    // The role the token names (OpenAPI lets a non-OAuth scheme list roles). Not left empty: a
    // verifier that normalizes the card drops empty members, and would then sign-check a card
    // without its requirements (card-signing.ts).
    securityRequirements: [{ schemes: { bearer: { list: ['agent'] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills,
  };
}

export type Card = ReturnType<typeof common>;

/** An interface named the 0.3 way, `{url, transport}`. */
const legacyInterface = (i: AgentInterface) => ({ url: i.url, transport: i.protocolBinding });

/**
 * The same card in 0.3 shape, served when the client asks for 0.3 or names no version (A2A 1.0
 * §3.6.2: none means 0.3). `url`, `preferredTransport` and `additionalInterfaces` name only the
 * interfaces that speak 0.3 (JSON-RPC): the HTTP+JSON binding and the gRPC service speak 1.0 only,
 * at paths and a service name a 0.3 client does not call. Security schemes carry a `type`
 * instead of the 1.0 oneof. The 1.0 `supportedInterfaces` stay as they are, so a 1.0 client that
 * reads this card still finds every binding (as the SDK's own 0.3 card route serves it).
 */
export function legacyCard(card: Card) {
  const { supportedInterfaces, capabilities, securitySchemes, securityRequirements: _requirements, ...rest } = card;
  const speaking03 = supportedInterfaces.filter((i) => i.protocolVersion === '0.3');
  const primary = speaking03[0]!; // interfaces() always lists JSON-RPC 0.3
  return Object.assign(rest, {
    protocolVersion: '0.3.0',
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    additionalInterfaces: speaking03.map(legacyInterface),
    supportedInterfaces,
    capabilities: { streaming: capabilities.streaming, pushNotifications: capabilities.pushNotifications },
    supportsAuthenticatedExtendedCard: capabilities.extendedAgentCard,
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: securitySchemes.bearer.httpAuthSecurityScheme.description,
      },
    },
    security: [{ bearer: ['agent'] }],
  });
}

/** The extended card in 0.3 shape: the 0.3 card, keeping the extension that carries what only a registered caller sees. */
export function legacyExtendedCard(card: Record<string, unknown>) {
  const full = card as Card;
  const legacy = legacyCard(full);
  return Object.assign(legacy, {
    capabilities: Object.assign(
      legacy.capabilities,
      full.capabilities.extensions ? { extensions: full.capabilities.extensions } : {},
    ),
  });
}

export function hubCard(base: string, skills: CardSkill[], bindings: Bindings = {}) {
  return common(
    base,
    base,
    'Muster',
    "An A2A hub: agents meet here and the hub holds their tasks. Send direct tasks at an agent's base, /agents/{handle}/; declare work at a space's base, /spaces/{name}/; post and contribute to public review tasks and answer open calls here; find agents with directory.search.",
    [...HUB_BASE_SKILLS, ...skills],
    bindings,
  );
}

/**
 * An agent's card: the hub's skills at its base, then the skills its profile declares (their ids
 * never collide: identity/profile.ts). A2A requires tags on every skill and a signed card holds
 * no empty member, so a declared skill without tags shows the agent's tags, or 'declared'.
 */
export function agentCard(hubBase: string, agent: AgentRecord, skills: CardSkill[], bindings: Bindings = {}) {
  const name = agent.name ?? agent.handle;
  const base = `${hubBase}agents/${agent.handle}/`;
  const declared = (agent.skills ?? []).map((s) =>
    Object.assign({}, s, { tags: s.tags ?? agent.tags ?? ['declared'] }),
  );
  const card = common(
    hubBase,
    base,
    name,
    agent.description ?? `${name}, an agent on a Muster hub. Tasks sent here wait in its inbox.`,
    [...skills, ...declared],
    bindings,
  );
  return Object.assign(card, {
    defaultInputModes: [...inputModesOf(agent)],
    defaultOutputModes: [...outputModesOf(agent)],
  }); // the profile's modes
}

export function spaceCard(hubBase: string, space: SpaceRecord, skills: CardSkill[], bindings: Bindings = {}) {
  const base = `${hubBase}spaces/${space.name}/`;
  const description =
    space.description ?? `Space ${space.name} on a Muster hub: declare work intents here; workers claim and land them.`;
  return common(
    hubBase,
    base,
    space.name,
    description,
    skills,
    bindings,
    "An agent token from POST /api/agents (the space's owner or an orchestrator) to declare or withdraw; GetTask, ListTasks and SubscribeToTask need none",
  );
}

/** The card of a base a kind brings, in the kind's words (KindBase.card). */
export function kindBaseCard(hubBase: string, base: KindBase, skills: CardSkill[], bindings: Bindings = {}) {
  return common(
    hubBase,
    `${hubBase}${base.name}/`,
    base.card.name,
    base.card.description,
    skills,
    bindings,
    base.card.bearer,
  );
}
