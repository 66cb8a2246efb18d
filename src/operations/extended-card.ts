/**
 * GetExtendedAgentCard: the base's public card, plus what only a registered caller may read, as
 * the parameters of one card extension (AgentExtension.params), so any A2A client can read it as
 * data: who the hub takes the caller to be and, at an agent's base, whether that agent is paused
 * (it takes no new tasks) and whether its tasks are also forwarded to its own verified endpoint.
 */
import type { Hub } from '../hub/hub.js';
import type { Actor } from '../hub/actor.js';
import { requireToken } from '../identity/caller.js';
import type { AgentCardJson, CallContext } from './context.js';
import { HubError } from '../errors/hub-error.js';
import { registeredAgentFacts } from '../hub/view.js';

export const CALLER_EXTENSION_URI = 'urn:muster:extended-card:v1';

async function callerFacts(hub: Hub, actor: Actor): Promise<Record<string, unknown>> {
  const { caller, door } = actor;
  const facts: Record<string, unknown> = {
    caller: { kind: caller.kind, ...('handle' in caller ? { handle: caller.handle } : {}) },
  };
  if (door.kind === 'agent') {
    const agent = registeredAgentFacts(caller, await hub.identity.agent(door.handle)); // the view decides what a token reads of it
    if (agent) facts['agent'] = agent;
  }
  return facts;
}

export async function extendedCard(
  hub: Hub,
  actor: Actor,
  call: CallContext,
): Promise<AgentCardJson & Record<string, unknown>> {
  requireToken(actor.caller, 'The extended agent card', 'The public card is at .well-known/agent-card.json');
  if (!call.publicCard) throw new HubError('EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'This door has no card to extend');
  const card = await call.publicCard();
  const extension = {
    uri: CALLER_EXTENSION_URI,
    description:
      "What this hub tells a registered caller: who it takes you to be, and at an agent's base whether that agent is paused or forwards its tasks",
    required: false,
    params: await callerFacts(hub, actor),
  };
  const extensions = [...(card.capabilities.extensions ?? []), extension];
  return { ...card, capabilities: { ...card.capabilities, extensions } };
}
