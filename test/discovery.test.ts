import { ClientFactory } from '@a2a-js/sdk/client';
import { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient } from './helpers/sdk.js';

let hub: TestHub;
let reader: Registered;

beforeAll(async () => {
  hub = await startTestHub();
  await register(hub, 'card-agent', { name: 'Card Agent', description: 'Answers questions about cards' });
  reader = await register(hub, 'card-reader');
});
afterAll(() => hub.destroy());

describe('agent card discovery', () => {
  // The cards offer an extended card, so the SDK's getAgentCard() asks for it, which needs a token.
  it('the SDK finds the hub base: JSON-RPC and HTTP+JSON interfaces and bearer scheme', async () => {
    const client = await sdkClient(hub.url, reader.token);
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.url])).toEqual([
      ['JSONRPC', '1.0', hub.url],
      ['JSONRPC', '0.3', hub.url],
      ['HTTP+JSON', '1.0', hub.url],
    ]);
    const bearer = card.securitySchemes['bearer'];
    expect(bearer?.scheme?.$case).toBe('httpAuthSecurityScheme');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.capabilities?.pushNotifications).toBe(true);
    expect(card.capabilities?.extendedAgentCard).toBe(true);
    // Without a token the SDK still resolves the public card, but its getAgentCard() is refused.
    const anonymous = await new ClientFactory().createFromUrl(hub.url);
    await expect(anonymous.getAgentCard()).rejects.toThrow(/bearer token/);
  });

  it("the SDK finds an agent's base, and its card names the agent", async () => {
    const base = `${hub.url}agents/card-agent/`;
    const client = await sdkClient(base, reader.token);
    const card = await client.getAgentCard();
    expect(card.name).toBe('Card Agent');
    expect(card.description).toBe('Answers questions about cards');
    expect(card.supportedInterfaces[0]?.url).toBe(base);
    expect(card.securityRequirements[0]?.schemes['bearer']).toBeDefined();
    expect(card.skills.map((s) => s.id)).toEqual(['direct-task']);
    expect(card.skills[0]?.description).toMatch(/answers at once/);
  });

  it('serves exactly what the SDK codec reads back (no lossy fields, no nulls)', async () => {
    for (const path of ['.well-known/agent-card.json', 'agents/card-agent/.well-known/agent-card.json']) {
      const res = await fetch(`${hub.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/max-age/);
      expect(res.headers.get('etag')).toBeTruthy();
      const text = await res.text();
      expect(text).not.toContain('null');
      const json = JSON.parse(text);
      expect(AgentCard.toJSON(AgentCard.fromJSON(json))).toEqual(json);
    }
  });

  it("an unknown handle's card is a JSON 404", async () => {
    const res = await fetch(`${hub.url}agents/nobody-here/.well-known/agent-card.json`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('AGENT_NOT_FOUND');
    await expect(new ClientFactory().createFromUrl(`${hub.url}agents/nobody-here/`)).rejects.toThrow();
  });

  it('serves a 0.3-shaped card to a client that asks with A2A-Version: 0.3', async () => {
    const res = await fetch(`${hub.url}agents/card-agent/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } });
    const card = (await res.json()) as any;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${hub.url}agents/card-agent/`, preferredTransport: 'JSONRPC', securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: ['agent'] }] });
    expect(card.supportedInterfaces).toBeUndefined();
    expect(res.headers.get('vary')).toContain('A2A-Version');
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await fetch(`${hub.url}.well-known/agent-card.json`);
    const etag = first.headers.get('etag')!;
    const second = await fetch(`${hub.url}.well-known/agent-card.json`, { headers: { 'if-none-match': etag } });
    expect(second.status).toBe(304);
  });
});
