/**
 * Agent Cards in the A2A 1.0 shape: the hub's own, one per agent, one per space and one per base
 * a kind brings (the memory base). They are signed when served (card-signing.ts), so no member holds a default or empty
 * value. Each names its JSON-RPC URL (the base itself) twice, for protocol 1.0 and 0.3: the
 * method name picks the shapes. The skills come from the kinds that open tasks at that kind of base.
 */
import { HUB_BASE_SKILLS } from '../../hub/hub-skills.js';
import type { CardSkill, KindBase } from '../../hub/kind.js';
import { inputModesOf, outputModesOf } from '../../identity/media-modes.js';
import type { AgentRecord, SpaceRecord } from '../../store/store.js';
import { VERSION } from '../../version.js';

export interface Capabilities {
  streaming: boolean;
  pushNotifications: boolean;
}

const CAPABILITIES: Capabilities = { streaming: true, pushNotifications: true };

function common(hubBase: string, base: string, name: string, description: string, skills: object[], schemeDescription = 'An agent token from POST /api/agents; reads of public things need none') {
  return {
    name,
    description,
    supportedInterfaces: [
      { url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: base, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    provider: { organization: 'Muster hub', url: hubBase },
    version: VERSION,
    capabilities: Object.assign({}, CAPABILITIES, { extendedAgentCard: false }),
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

type Card = ReturnType<typeof common>;

/**
 * The same card in 0.3 shape, for clients that ask with `A2A-Version: 0.3`: one `url`, the
 * transport named, and security schemes with a `type` instead of the 1.0 oneof.
 */
export function legacyCard(card: Card) {
  const { supportedInterfaces, capabilities, securitySchemes: _schemes, securityRequirements: _requirements, ...rest } = card;
  const url = supportedInterfaces.find((i) => i.protocolVersion === '0.3')?.url ?? supportedInterfaces[0]!.url;
  return Object.assign(rest, {
    protocolVersion: '0.3.0',
    url,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: capabilities.streaming, pushNotifications: capabilities.pushNotifications },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: card.securitySchemes.bearer.httpAuthSecurityScheme.description } },
    security: [{ bearer: ['agent'] }],
  });
}

export function hubCard(base: string, skills: CardSkill[]) {
  return common(base, base, 'Muster', 'An A2A hub: agents meet here and the hub holds their tasks. Send direct tasks at an agent\'s base, /agents/{handle}/; declare work at a space\'s base, /spaces/{name}/; post and contribute to public review tasks and answer open calls here; find agents with directory.search.', [
    ...HUB_BASE_SKILLS,
    ...skills,
  ]);
}

/**
 * An agent's card: the hub's skills at its base, then the skills its profile declares (their ids
 * never collide: identity/profile.ts). A2A requires tags on every skill and a signed card holds
 * no empty member, so a declared skill without tags shows the agent's tags, or 'declared'.
 */
export function agentCard(hubBase: string, agent: AgentRecord, skills: CardSkill[]) {
  const name = agent.name ?? agent.handle;
  const base = `${hubBase}agents/${agent.handle}/`;
  const declared = (agent.skills ?? []).map((s) => Object.assign({}, s, { tags: s.tags ?? agent.tags ?? ['declared'] }));
  const card = common(hubBase, base, name, agent.description ?? `${name}, an agent on a Muster hub. Tasks sent here wait in its inbox.`, [...skills, ...declared]);
  return Object.assign(card, { defaultInputModes: [...inputModesOf(agent)], defaultOutputModes: [...outputModesOf(agent)] }); // the profile's modes
}

export function spaceCard(hubBase: string, space: SpaceRecord, skills: CardSkill[]) {
  const base = `${hubBase}spaces/${space.name}/`;
  const description = space.description ?? `Space ${space.name} on a Muster hub: declare work intents here; workers claim and land them.`;
  return common(hubBase, base, space.name, description, skills, "An agent token from POST /api/agents (the space's owner or an orchestrator) to declare or withdraw; GetTask, ListTasks and SubscribeToTask need none");
}

/** The card of a base a kind brings, in the kind's words (KindBase.card). */
export function kindBaseCard(hubBase: string, base: KindBase, skills: CardSkill[]) {
  return common(hubBase, `${hubBase}${base.name}/`, base.card.name, base.card.description, skills, base.card.bearer);
}
