/**
 * The front door on a real hub: `GET /` answers curl and SDK clients with a JSON index whose every
 * link works, a browser with the home page as before, `POST /` stays the hub's JSON-RPC endpoint;
 * a browser at an agent's base is sent to the agent's feed page while A2A clients get what they
 * got before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, startTestHub, type TestHub } from './helpers/hub.js';
import { PACKAGE } from '../src/version.js';

/** What Chromium sends for a page. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('the front door', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
    await register(hub, 'door-dave', { name: 'Dave at the door' });
  });
  afterAll(() => hub.destroy());

  it('GET / for curl: a JSON index of the hub, every link of which answers', async () => {
    for (const accept of ['*/*', undefined, 'application/json']) {
      const res = await fetch(hub.url, accept ? { headers: { accept } } : {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('vary')).toMatch(/accept/i);
      const index = (await res.json()) as { name: string; version: string; links: Record<string, string> };
      expect(index).toEqual({
        name: 'Muster',
        description: PACKAGE.description,
        version: PACKAGE.version,
        links: {
          a2a: hub.url,
          agentCard: `${hub.url}.well-known/agent-card.json`,
          catalog: `${hub.url}.well-known/ai-catalog.json`,
          health: `${hub.url}health`,
          status: `${hub.url}api/status`,
          agents: `${hub.url}api/agents`,
          mcp: `${hub.url}mcp`,
          feed: `${hub.url}feed/`,
          docs: PACKAGE.homepage ?? `https://www.npmjs.com/package/${PACKAGE.name}`,
        },
      });
    }
    const { links } = (await (await fetch(hub.url)).json()) as { links: Record<string, string> };
    for (const name of ['agentCard', 'catalog', 'health', 'status', 'agents', 'feed'])
      expect((await fetch(links[name]!)).status, name).toBe(200);
    // /mcp takes the MCP client's POSTs; a bare GET is refused in its own words, but the route is there.
    expect((await fetch(links['mcp']!)).status).not.toBe(404);
    const card = (await (await fetch(links['agentCard']!)).json()) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces.map((i) => i.url)).toContain(links['a2a']);
  });

  it('GET / for a browser is the home page as before; a bad token is still 401; POST / is still JSON-RPC', async () => {
    const page = await fetch(hub.url, { headers: { accept: BROWSER } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<html');
    const badToken = await fetch(hub.url, { headers: { authorization: 'Bearer not-a-token' } });
    expect(badToken.status).toBe(401);
    const rpc = await fetch(hub.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'no-such-task' } }),
    });
    const answer = (await rpc.json()) as { jsonrpc: string; id: number; error?: { code: number } };
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: expect.any(Number) } });
  });

  it("a browser at an agent's base goes to the agent's feed page; A2A clients there get what they got before", async () => {
    for (const base of ['agents/door-dave/', 'agents/door-dave']) {
      const res = await fetch(`${hub.url}${base}`, { headers: { accept: BROWSER }, redirect: 'manual' });
      expect(res.status, base).toBe(302);
      expect(res.headers.get('location')).toBe('/feed/agents/door-dave');
    }
    const followed = await fetch(`${hub.url}agents/door-dave/`, { headers: { accept: BROWSER } });
    expect(followed.url).toBe(`${hub.url}feed/agents/door-dave`);
    expect(followed.status).toBe(200);
    expect(await followed.text()).toContain('Dave at the door');
    // An A2A client (JSON first) at the base: the HTTP+JSON binding's 404, as before.
    const client = await fetch(`${hub.url}agents/door-dave/`, { headers: { accept: 'application/json' } });
    expect(client.status).toBe(404);
    expect(((await client.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    // The base's card and its JSON-RPC endpoint answer as ever, whatever the Accept.
    const card = await fetch(`${hub.url}agents/door-dave/.well-known/agent-card.json`, {
      headers: { accept: BROWSER },
    });
    expect(card.status).toBe(200);
    const rpc = await fetch(`${hub.url}agents/door-dave/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'no-such-task' } }),
    });
    expect(((await rpc.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
  });
});
