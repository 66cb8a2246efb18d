/**
 * An agent proves it controls its own A2A endpoint before the hub forwards tasks to it: the hub
 * hands out a random challenge, and the agent either puts it in its card (the endpoint-control
 * extension, endpoint-card.ts: configuration only, any A2A server can) or serves it at
 * `<endpoint>/.well-known/muster-challenge`. The hub reads both back through the SSRF-safe
 * client, picks the interface it will speak from the card, and only then may forwarding be
 * switched on.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { parseWith } from '../a2a/validate.js';
import { checkTarget, DeliveryFailed, safeSend, TargetRefused, type TargetPolicy } from '../delivery/safe-client.js';
import { interfaceOf, SPOKEN, type EndpointInterface } from '../delivery/remote/interface.js';
import { cardCarries, controlExtension, placesOf } from './endpoint-card.js';
import { HubError } from '../errors/hub-error.js';
import { QuotaExceeded, type AgentRecord, type IdentityStore } from '../store/store.js';
import type { Identity } from './agents.js';
import { requireToken, type Caller } from './caller.js';
import type { Quotas } from './quotas.js';
import { isoTime } from '../wire/iso-time.js';

const CHALLENGE_TTL_MS = 15 * 60_000;
const forwardingBody = z.object({ enabled: z.boolean({ error: 'must be true or false' }) }).strict();

export interface ForwardingView {
  handle: string;
  enabled: boolean;
  available: boolean;
  endpoint?: string;
  verifiedAt?: string;
  /** What the hub speaks to the endpoint, as its card said at verification. */
  speaks?: { url: string; protocol: string; following: string };
}

export class EndpointControl {
  constructor(
    private readonly store: IdentityStore,
    private readonly identity: Identity,
    private readonly quotas: Quotas,
    private readonly policy: TargetPolicy,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A new challenge, with the two ways to show it: the extension to put in the card, or the URL to serve it at. */
  async challenge(caller: Caller, handle: string) {
    const agent = await this.own(caller, handle);
    const endpoint = endpointOf(agent);
    const challenge = randomBytes(24).toString('base64url');
    const expiresAt = this.clock() + CHALLENGE_TTL_MS;
    await this.store.saveChallenge(handle, { challenge, endpoint, expiresAt });
    const places = placesOf(endpoint);
    return {
      challenge,
      extension: controlExtension(challenge),
      card: places.cards[0]!,
      url: places.challenge,
      expiresAt: isoTime(expiresAt),
    };
  }

  async verify(caller: Caller, handle: string): Promise<ForwardingView> {
    const agent = await this.own(caller, handle);
    const pending = await this.store.takeChallenge(handle);
    if (!pending || pending.expiresAt < this.clock() || pending.endpoint !== endpointOf(agent)) {
      throw new HubError('CONFLICT', 'There is no live challenge for this endpoint', {
        hint: `POST /api/agents/${handle}/endpoint/challenge first, then put it in your card (or serve it) and verify within 15 minutes`,
      });
    }
    const places = placesOf(pending.endpoint);
    const { card, url } = await this.card(places.cards);
    if (!cardCarries(card, pending.challenge) && !(await this.serves(places.challenge, pending.challenge))) {
      throw new HubError(
        'CONFLICT',
        `The card at ${url} does not carry the challenge, and ${places.challenge} does not serve it`,
        {
          hint: "Put the extension the challenge answered in your card's capabilities.extensions (or serve the challenge as plain text at its url), then ask for a new challenge and verify",
        },
      );
    }
    const spoken = await this.interfaceIn(card, url);
    const verified = await this.store.markEndpointVerified(handle, pending.endpoint, spoken, this.clock());
    return view(verified);
  }

  async forwarding(caller: Caller, handle: string): Promise<ForwardingView> {
    return view(await this.own(caller, handle));
  }

  async setForwarding(caller: Caller, handle: string, body: unknown): Promise<ForwardingView> {
    const agent = await this.own(caller, handle);
    const { enabled } = parseWith(forwardingBody, body);
    if (enabled && !(agent.endpointRpcUrl && agent.endpointVerifiedAt)) {
      throw new HubError('CONFLICT', 'Forwarding needs an endpoint whose control was proven', {
        hint: `Verify it: POST /api/agents/${handle}/endpoint/challenge, then /endpoint/verify`,
      });
    }
    if (enabled) await this.refuseUnsafe(agent.endpointRpcUrl!);
    const now = this.clock();
    try {
      const updated = await this.store.setForwarding(
        handle,
        enabled,
        this.quotas.charge('forwarding.change', handle, now),
      );
      return view(updated);
    } catch (e) {
      throw e instanceof QuotaExceeded ? this.quotas.refusal(e, now) : e;
    }
  }

  /**
   * Forwarding goes on only to an endpoint the outbound rules let the hub reach now: what its host
   * resolves to may have changed since it was verified. `meta.endpointRefused` names the rule.
   */
  private async refuseUnsafe(url: string): Promise<void> {
    try {
      await checkTarget(url, this.policy);
    } catch (e) {
      if (!(e instanceof TargetRefused)) throw e;
      throw new HubError('CONFLICT', `The endpoint is not one this hub may call now: ${e.message}`, {
        hint: 'Serve the endpoint at a public https address, verify it again, then switch forwarding on',
        meta: { endpointRefused: e.reason },
      });
    }
  }

  private async own(caller: Caller, handle: string): Promise<AgentRecord> {
    const agent = await this.identity.agent(handle);
    requireToken(caller, 'Endpoint control');
    this.identity.requireOwner(caller, agent);
    return agent;
  }

  /** The endpoint's card: the first of its places that answers 200 with JSON. */
  private async card(urls: readonly string[]): Promise<{ card: unknown; url: string }> {
    let refusal: unknown;
    for (const url of urls) {
      try {
        return { card: JSON.parse((await this.fetch(url)).toString('utf8')), url };
      } catch (e) {
        refusal ??=
          e instanceof SyntaxError
            ? new HubError('CONFLICT', `The endpoint's agent card at ${url} is not JSON`, {
                hint: 'Serve an A2A Agent Card (JSON) there',
              })
            : e;
      }
    }
    throw refusal;
  }

  private async serves(url: string, challenge: string): Promise<boolean> {
    const served = await this.fetch(url).catch(() => undefined);
    return served?.toString('utf8').trim() === challenge;
  }

  /** The interface the hub will speak, from the card: on the card's origin (whose control was proven), and reachable by the outbound rules. */
  private async interfaceIn(card: unknown, cardUrl: string): Promise<EndpointInterface> {
    const spoken = interfaceOf(card, cardUrl);
    if (!spoken)
      throw new HubError('CONFLICT', `The endpoint's agent card names no interface this hub speaks`, {
        hint: `List ${SPOKEN}`,
      });
    const origin = new URL(cardUrl).origin;
    if (new URL(spoken.url).origin !== origin) {
      throw new HubError(
        'CONFLICT',
        `The card's ${spoken.protocol} URL ${spoken.url} is not on the card's origin ${origin}`,
        { hint: 'Serve the interface on the same scheme, host and port as the card' },
      );
    }
    try {
      await checkTarget(spoken.url, this.policy);
    } catch (e) {
      throw new HubError(
        'CONFLICT',
        `The card's ${spoken.protocol} URL is not one this hub may call: ${(e as Error).message}`,
        { hint: 'Use a public https URL' },
      );
    }
    return spoken;
  }

  private async fetch(url: string): Promise<Buffer> {
    try {
      const res = await safeSend({ url, method: 'GET' }, this.policy);
      if (res.status !== 200)
        throw new HubError('CONFLICT', `${url} answered HTTP ${res.status}`, { hint: 'Serve it with status 200' });
      return res.body;
    } catch (e) {
      if (e instanceof TargetRefused || e instanceof DeliveryFailed) {
        throw new HubError('CONFLICT', `Cannot fetch ${url}: ${e.message}`, {
          hint: 'The endpoint must be a public https URL this hub can reach',
        });
      }
      throw e;
    }
  }
}

/** The endpoint as challenges name it: a base ends in a slash; a card's own URL stays as it is. */
const endpointOf = (agent: AgentRecord): string => {
  if (!agent.endpoint)
    throw new HubError('CONFLICT', `'${agent.handle}' registered no endpoint`, {
      hint: 'Register the agent with "endpoint": its own A2A base URL, or its card\'s URL',
    });
  return agent.endpoint.endsWith('/') || new URL(agent.endpoint).pathname.endsWith('.json')
    ? agent.endpoint
    : `${agent.endpoint}/`;
};

const view = (agent: AgentRecord): ForwardingView => ({
  handle: agent.handle,
  enabled: agent.forwarding === true,
  available: agent.endpointVerifiedAt !== undefined,
  ...(agent.endpoint ? { endpoint: agent.endpoint } : {}),
  ...(agent.endpointVerifiedAt !== undefined ? { verifiedAt: isoTime(agent.endpointVerifiedAt) } : {}),
  ...(agent.endpointRpcUrl
    ? {
        speaks: {
          url: agent.endpointRpcUrl,
          protocol: agent.endpointProtocol ?? 'JSONRPC/1.0',
          following: agent.endpointFollow ?? 'polling',
        },
      }
    : {}),
});
