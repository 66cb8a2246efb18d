/**
 * Discovery at every base, for every A2A version: a card asked for without a version (header or
 * query) is the 0.3 card carrying the 1.0 supportedInterfaces too; A2A-Version 1.0 gets the 1.0
 * card; an unsupported version is a JSON refusal; `.well-known/agent.json` serves the same card.
 * Runs on the store the run uses (SQLite, or PostgreSQL with MUSTER_TEST_PG).
 */
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

let hub: TestHub;
let reader: Registered;

const BASES = ['', 'agents/card-agent/', 'spaces/card-space/', 'memory/'];
const cardUrl = (base: string, path = '.well-known/agent-card.json') => `${hub.url}${base}${path}`;
const withToken =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
/** The card a request gets, as JSON, with the headers that matter. */
async function getCard(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return {
    status: res.status,
    vary: res.headers.get('vary'),
    type: res.headers.get('content-type'),
    etag: res.headers.get('etag'),
    text: await res.text(),
  };
}

beforeAll(async () => {
  hub = await startTestHub();
  await register(hub, 'card-agent', { name: 'Card Agent', description: 'Answers questions about cards' });
  reader = await register(hub, 'card-reader');
  expect((await rest(hub, 'POST', 'api/spaces', { token: reader.token, body: { name: 'card-space' } })).status).toBe(
    201,
  );
});
afterAll(() => hub.destroy());

describe('agent card discovery', () => {
  // The cards offer an extended card, so the SDK's getAgentCard() asks for it, which needs a token.
  it('the SDK (which asks with A2A-Version: 1.0) finds the hub base: JSON-RPC and HTTP+JSON interfaces and bearer scheme', async () => {
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
    expect(card.skills[0]?.description).toMatch(/card-agent's inbox/);
  });

  it('the 1.0 card is exactly what the SDK codec reads back (no lossy fields, no nulls)', async () => {
    for (const path of ['.well-known/agent-card.json', 'agents/card-agent/.well-known/agent-card.json']) {
      const res = await fetch(`${hub.url}${path}`, { headers: { 'a2a-version': '1.0' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/max-age/);
      expect(res.headers.get('etag')).toBeTruthy();
      const text = await res.text();
      expect(text).not.toContain('null');
      const json = JSON.parse(text);
      expect(AgentCard.toJSON(AgentCard.fromJSON(json))).toEqual(json);
    }
  });

  it('without a version, every base serves the 0.3 card, carrying the 1.0 supportedInterfaces too', async () => {
    for (const base of BASES) {
      const url = `${hub.url}${base}`;
      const none = await getCard(cardUrl(base));
      expect([none.status, none.vary, none.type], base).toEqual([
        200,
        'A2A-Version',
        expect.stringMatching(/^application\/json/),
      ]);
      const card = JSON.parse(none.text);
      const v1 = JSON.parse((await getCard(cardUrl(base), { 'a2a-version': '1.0' })).text);
      expect(card, base).toMatchObject({
        protocolVersion: '0.3.0',
        url,
        preferredTransport: 'JSONRPC',
        // Only what speaks 0.3: the HTTP+JSON binding speaks 1.0 alone, at paths a 0.3 client does not call.
        additionalInterfaces: [{ url, transport: 'JSONRPC' }],
        supportsAuthenticatedExtendedCard: true,
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        security: [{ bearer: ['agent'] }],
      });
      expect(card.supportedInterfaces, base).toEqual(v1.supportedInterfaces);
      expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true });
      // The 1.0 card is the 1.0 shape only.
      expect(v1.url).toBeUndefined();
      expect(v1.protocolVersion).toBeUndefined();
      expect(v1.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
      expect(v1.capabilities.extendedAgentCard).toBe(true);
    }
  });

  it('A2A-Version chooses the shape by header or by query parameter; 0.3 is the same card as none', async () => {
    const url = cardUrl('agents/card-agent/');
    const none = await getCard(url);
    const v1 = await getCard(url, { 'a2a-version': '1.0' });
    expect(v1.text).not.toBe(none.text);
    expect((await getCard(`${url}?A2A-Version=1.0`)).text).toBe(v1.text);
    expect((await getCard(url, { 'a2a-version': '1.0.3' })).text).toBe(v1.text);
    for (const legacy of [
      await getCard(url, { 'a2a-version': '0.3' }),
      await getCard(`${url}?A2A-Version=0.3`),
      await getCard(url, { 'a2a-version': '' }),
    ]) {
      expect([legacy.text, legacy.etag]).toEqual([none.text, none.etag]);
    }
    // The header wins over the query parameter.
    expect((await getCard(`${url}?A2A-Version=0.3`, { 'a2a-version': '1.0' })).text).toBe(v1.text);
  });

  it('an unsupported version on the card route is a JSON 400 VERSION_NOT_SUPPORTED with a hint, by header or query', async () => {
    for (const [url, headers] of [
      [cardUrl('agents/card-agent/'), { 'a2a-version': '2.0' }],
      [`${cardUrl('')}?A2A-Version=0.2`, {}],
      [cardUrl('memory/', '.well-known/agent.json'), { 'a2a-version': 'latest' }],
    ] as const) {
      const res = await getCard(url, headers);
      expect([res.status, res.type], url).toEqual([400, expect.stringMatching(/^application\/json/)]);
      const error = JSON.parse(res.text).error;
      expect(error.code).toBe('VERSION_NOT_SUPPORTED');
      expect(error.hint).toMatch(/A2A-Version: 1\.0/);
    }
  });

  it('.well-known/agent.json (the 0.2 path) serves the same card as agent-card.json on every base, in both shapes', async () => {
    for (const base of BASES) {
      for (const headers of [{}, { 'a2a-version': '1.0' }] as Record<string, string>[]) {
        const legacyPath = await getCard(cardUrl(base, '.well-known/agent.json'), headers);
        const wellKnown = await getCard(cardUrl(base), headers);
        expect([legacyPath.status, legacyPath.etag, legacyPath.text], base).toEqual([
          200,
          wellKnown.etag,
          wellKnown.text,
        ]);
      }
    }
    const missing = await getCard(`${hub.url}agents/nobody-here/.well-known/agent.json`);
    expect([missing.status, JSON.parse(missing.text).error.code]).toEqual([404, 'AGENT_NOT_FOUND']);
  });

  it('a 0.3 client reads url and preferredTransport from the header-less card and talks 0.3 there, extended card included', async () => {
    const card = JSON.parse((await getCard(cardUrl('agents/card-agent/'))).text);
    expect(card.preferredTransport).toBe('JSONRPC');
    const legacy = new LegacyJsonRpcTransport({ endpoint: card.url, fetchImpl: withToken(reader.token) });
    const sent = wire((await legacy.sendMessage(sendRequest('Hello from 0.3', { returnImmediately: true }))) as never);
    expect(sent.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(sent.metadata.muster).toMatchObject({ from: 'card-reader', to: 'card-agent' });
    // The SDK's 0.3 reader takes both the public card and the extended one (agent/getAuthenticatedExtendedCard).
    expect(parseLegacyAgentCard(card).capabilities?.extendedAgentCard).toBe(true);
    const extended = await legacy.getExtendedAgentCard({ tenant: '' });
    expect(extended.name).toBe('Card Agent');
    expect(extended.supportedInterfaces[0]).toMatchObject({ url: card.url, protocolBinding: 'JSONRPC' });
    expect(extended.capabilities?.extensions.at(-1)?.params).toMatchObject({ caller: { handle: 'card-reader' } });
  });

  it('a 1.0 client that fetches the card without a version still finds its interface in supportedInterfaces', async () => {
    // The SDK's resolver sends A2A-Version: 1.0; this one drops it, as a client that forgets would.
    const bare: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.delete('a2a-version');
      return fetch(input, { ...init, headers });
    };
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withToken(reader.token) })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: bare }),
    });
    const client = await new ClientFactory(options).createFromUrl(`${hub.url}agents/card-agent/`);
    const sent = wire((await client.sendMessage(sendRequest('Hello from 1.0', { returnImmediately: true }))) as never);
    expect(sent.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(sent.metadata.muster).toMatchObject({ from: 'card-reader', to: 'card-agent' });
  });

  it("an unknown handle's card is a JSON 404", async () => {
    const res = await fetch(`${hub.url}agents/nobody-here/.well-known/agent-card.json`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('AGENT_NOT_FOUND');
    await expect(new ClientFactory().createFromUrl(`${hub.url}agents/nobody-here/`)).rejects.toThrow();
  });

  it('answers 304 to a matching If-None-Match, in each shape', async () => {
    for (const headers of [{}, { 'a2a-version': '1.0' }] as Record<string, string>[]) {
      const first = await fetch(`${hub.url}.well-known/agent-card.json`, { headers });
      const etag = first.headers.get('etag')!;
      const second = await fetch(`${hub.url}.well-known/agent-card.json`, {
        headers: { ...headers, 'if-none-match': etag },
      });
      expect(second.status).toBe(304);
    }
  });
});
