/**
 * An agent proves it controls its own A2A endpoint before the hub forwards tasks to it: the hub
 * hands out a random challenge, the agent serves it at `<endpoint>/.well-known/muster-challenge`,
 * and the hub fetches it back through the SSRF-safe client. Only then may forwarding be switched on.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { parseWith } from '../a2a/validate.js';
import { checkTarget, DeliveryFailed, safeSend, TargetRefused, type TargetPolicy } from '../delivery/safe-client.js';
import { HubError } from '../errors/hub-error.js';
import { QuotaExceeded, type AgentRecord, type Store } from '../store/store.js';
import type { Identity } from './agents.js';
import { requireToken, type Caller } from './caller.js';
import type { Quotas } from './quotas.js';

const CHALLENGE_TTL_MS = 15 * 60_000;
const forwardingBody = z.object({ enabled: z.boolean({ error: 'must be true or false' }) }).strict();

export interface ForwardingView {
  handle: string;
  enabled: boolean;
  available: boolean;
  endpoint?: string;
  verifiedAt?: string;
}

export class EndpointControl {
  constructor(
    private readonly store: Store,
    private readonly identity: Identity,
    private readonly quotas: Quotas,
    private readonly policy: TargetPolicy,
    private readonly clock: () => number = Date.now,
  ) {}

  async challenge(caller: Caller, handle: string): Promise<{ challenge: string; url: string; expiresAt: string }> {
    const agent = await this.own(caller, handle);
    const endpoint = base(agent);
    const challenge = randomBytes(24).toString('base64url');
    const expiresAt = this.clock() + CHALLENGE_TTL_MS;
    await this.store.saveChallenge(handle, { challenge, endpoint, expiresAt });
    return { challenge, url: new URL('.well-known/muster-challenge', endpoint).href, expiresAt: new Date(expiresAt).toISOString() };
  }

  async verify(caller: Caller, handle: string): Promise<ForwardingView> {
    const agent = await this.own(caller, handle);
    const pending = await this.store.takeChallenge(handle);
    if (!pending || pending.expiresAt < this.clock() || pending.endpoint !== base(agent)) {
      throw new HubError('CONFLICT', 'There is no live challenge for this endpoint', { hint: `POST /api/agents/${handle}/endpoint/challenge first, then serve it and verify within 15 minutes` });
    }
    const served = (await this.fetch(new URL('.well-known/muster-challenge', pending.endpoint).href)).toString('utf8').trim();
    if (served !== pending.challenge) {
      throw new HubError('CONFLICT', 'The endpoint did not serve the challenge', { hint: 'Serve the challenge as plain text at the URL you were given, then ask for a new one' });
    }
    const rpcUrl = await this.jsonRpcUrl(pending.endpoint);
    const verified = await this.store.markEndpointVerified(handle, pending.endpoint, rpcUrl, this.clock());
    return view(verified);
  }

  async forwarding(caller: Caller, handle: string): Promise<ForwardingView> {
    return view(await this.own(caller, handle));
  }

  async setForwarding(caller: Caller, handle: string, body: unknown): Promise<ForwardingView> {
    const agent = await this.own(caller, handle);
    const { enabled } = parseWith(forwardingBody, body);
    if (enabled && !(agent.endpointRpcUrl && agent.endpointVerifiedAt)) {
      throw new HubError('CONFLICT', 'Forwarding needs an endpoint whose control was proven', { hint: `Verify it: POST /api/agents/${handle}/endpoint/challenge, then /endpoint/verify` });
    }
    const now = this.clock();
    try {
      const updated = await this.store.setForwarding(handle, enabled, this.quotas.charge('forwarding.change', handle, now));
      return view(updated);
    } catch (e) {
      throw e instanceof QuotaExceeded ? this.quotas.refusal(e, now) : e;
    }
  }

  private async own(caller: Caller, handle: string): Promise<AgentRecord> {
    const agent = await this.identity.agent(handle);
    requireToken(caller, 'Endpoint control');
    this.identity.requireOwner(caller, agent);
    return agent;
  }

  /** The 1.0 JSON-RPC URL named by the card at the endpoint (reachable by the same rules). */
  private async jsonRpcUrl(endpoint: string): Promise<string> {
    let card: { supportedInterfaces?: { url?: unknown; protocolBinding?: unknown; protocolVersion?: unknown }[] };
    try {
      card = JSON.parse((await this.fetch(new URL('.well-known/agent-card.json', endpoint).href)).toString('utf8'));
    } catch (e) {
      if (e instanceof HubError) throw e;
      throw new HubError('CONFLICT', 'The endpoint\'s agent card is not JSON', { hint: 'Serve an A2A 1.0 Agent Card at <endpoint>/.well-known/agent-card.json' });
    }
    const rpc = card.supportedInterfaces?.find((i) => i.protocolBinding === 'JSONRPC' && String(i.protocolVersion).startsWith('1.'));
    if (typeof rpc?.url !== 'string') {
      throw new HubError('CONFLICT', 'The endpoint\'s agent card names no A2A 1.0 JSON-RPC interface', { hint: 'List a JSONRPC interface with protocolVersion 1.0 in supportedInterfaces' });
    }
    // Control was proven for the endpoint's origin only: the interface must live there too.
    let url: URL;
    try {
      url = new URL(rpc.url, endpoint);
    } catch {
      url = new URL('invalid:');
    }
    if (url.origin !== new URL(endpoint).origin) {
      throw new HubError('CONFLICT', `The card's JSON-RPC URL ${rpc.url} is not on the endpoint's origin ${new URL(endpoint).origin}`, { hint: 'Serve the JSON-RPC interface on the same scheme, host and port as the endpoint' });
    }
    try {
      await checkTarget(url.href, this.policy);
    } catch (e) {
      throw new HubError('CONFLICT', `The card's JSON-RPC URL is not one this hub may call: ${(e as Error).message}`, { hint: 'Use a public https URL' });
    }
    return url.href;
  }

  private async fetch(url: string): Promise<Buffer> {
    try {
      const res = await safeSend({ url, method: 'GET' }, this.policy);
      if (res.status !== 200) throw new HubError('CONFLICT', `${url} answered HTTP ${res.status}`, { hint: 'Serve it with status 200' });
      return res.body;
    } catch (e) {
      if (e instanceof TargetRefused || e instanceof DeliveryFailed) {
        throw new HubError('CONFLICT', `Cannot fetch ${url}: ${e.message}`, { hint: 'The endpoint must be a public https URL this hub can reach' });
      }
      throw e;
    }
  }
}

const base = (agent: AgentRecord): string => {
  if (!agent.endpoint) throw new HubError('CONFLICT', `'${agent.handle}' registered no endpoint`, { hint: 'Register the agent with "endpoint": its own A2A base URL' });
  return agent.endpoint.endsWith('/') ? agent.endpoint : `${agent.endpoint}/`;
};

const view = (agent: AgentRecord): ForwardingView => ({
  handle: agent.handle,
  enabled: agent.forwarding === true,
  available: agent.endpointVerifiedAt !== undefined,
  ...(agent.endpoint ? { endpoint: agent.endpoint } : {}),
  ...(agent.endpointVerifiedAt !== undefined ? { verifiedAt: new Date(agent.endpointVerifiedAt).toISOString() } : {}),
});
