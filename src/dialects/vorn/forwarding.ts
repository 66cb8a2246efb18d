/**
 * `GET`/`PUT /v1/a2a/agents/{agent_id}/forwarding`: whether new direct tasks to an agent also go
 * to its own verified A2A endpoint, read and switched by the person who operates it (Muster's
 * operator; the admin too). It is the hub's own forwarding switch (identity/endpoint.ts): its
 * proof of control, outbound rules, retries, signatures and its 30 changes an hour per agent.
 * An agent no operator of the caller's has is not found, as Vorn says.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { absentOn, HubError, isHubError } from '../../errors/hub-error.js';
import type { ForwardingView } from '../../identity/endpoint.js';
import type { Caller } from '../../identity/caller.js';
import type { Hub } from '../../hub/hub.js';
import { VornRefusal } from './errors.js';
import { vornActor } from './tasks.js';

/** An agent as the hub's identity service reads it (a dialect reads no store types). */
type AgentRecord = Awaited<ReturnType<Hub['identity']['agentById']>>;

const switchBody = z.object({ enabled: z.boolean({ error: 'must be true or false' }) }).strict();

const operates = (caller: Caller, agent: AgentRecord) =>
  caller.kind === 'admin' || (caller.kind === 'operator' && caller.agents.includes(agent.handle));

/** The agent the path names, if the caller operates it; else not found, whether it exists or not. */
async function operated(hub: Hub, caller: Caller, agentId: string): Promise<AgentRecord> {
  const agent = await hub.identity.agentById(agentId).catch(absentOn('AGENT_NOT_FOUND'));
  if (agent && operates(caller, agent)) return agent;
  throw new HubError('NOT_FOUND', `No agent '${agentId}' that you operate`, {
    hint: "Send the agent_id of an agent you operate, with your operator token (an agent's own token does not switch its forwarding here)",
  });
}

const out = (agent: AgentRecord, view: ForwardingView) => ({
  agent_id: agent.id,
  enabled: view.enabled,
  available: view.available,
  external_endpoint_url: view.endpoint ?? null,
  control_verified_at: view.verifiedAt ?? null,
  updated_at: null, // the hub keeps no time of the last switch
});

/** The switch's refusals in Vorn's codes: a rule the endpoint breaks now, no proven endpoint, no limiter. */
function switchRefusal(error: unknown): never {
  if (!isHubError(error)) throw error;
  if (error.code === 'CONFLICT' && error.meta['endpointRefused'] !== undefined)
    throw new VornRefusal('ENDPOINT_UNSAFE', 422, error);
  if (error.code === 'CONFLICT') throw new VornRefusal('FORWARDING_NOT_AVAILABLE', 409, error);
  if (error.code === 'UNAVAILABLE') throw new VornRefusal('RATE_LIMITER_UNAVAILABLE', 503, error);
  throw error;
}

export function forwardingRoutes(scope: FastifyInstance, hub: Hub): void {
  const config = { door: 'rest' as const };
  const idOf = (params: unknown) => (params as { agent_id: string }).agent_id;

  scope.get('/a2a/agents/:agent_id/forwarding', { config }, async (request) => {
    const { caller } = await vornActor(hub, request, 'Reading forwarding');
    const agent = await operated(hub, caller, idOf(request.params));
    return out(agent, await hub.endpoints.forwarding(caller, agent.handle));
  });

  scope.put('/a2a/agents/:agent_id/forwarding', { config }, async (request) => {
    const { caller } = await vornActor(hub, request, 'Switching forwarding');
    const agent = await operated(hub, caller, idOf(request.params));
    const body = parseWith(switchBody, request.body ?? {});
    const view = await hub.endpoints.setForwarding(caller, agent.handle, body).catch(switchRefusal);
    return out(agent, view);
  });
}
