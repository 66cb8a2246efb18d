/**
 * GET /.well-known/ai-catalog.json on a real hub, on the test's store (SQLite, or PostgreSQL with
 * MUSTER_TEST_PG): every public base listed anonymously in the AI Catalog 1.0 shape, each card URL
 * serving that base's card, new bases appearing, caching headers, and the nested pages a big hub
 * is split into.
 */
import { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../src/doors/a2a/catalog.js';
import { register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let owner: Registered;

const CATALOG_URL = () => `${hub.url}.well-known/ai-catalog.json`;
const CARD_TYPE = 'application/a2a-agent-card+json';
const NESTED_TYPE = 'application/ai-catalog+json';

interface Entry {
  identifier: string;
  type: string;
  url?: string;
  data?: unknown;
  displayName?: string;
  description?: string;
  tags?: string[];
  updatedAt?: string;
}

async function fetchCatalog(url = CATALOG_URL(), headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return {
    res,
    body: text
      ? (JSON.parse(text) as {
          specVersion: string;
          host?: { displayName: string; identifier?: string };
          entries: Entry[];
        })
      : undefined,
  };
}

/** The document's shape, as the AI Catalog draft's Level 2 asks for it. */
function expectCatalogShape(doc: unknown): asserts doc is { specVersion: string; entries: Entry[] } {
  const d = doc as Record<string, any>;
  expect(d.specVersion).toMatch(/^\d+\.\d+$/);
  expect(d.specVersion).toBe('1.0');
  expect(d.host).toMatchObject({ displayName: expect.any(String) });
  expect(Array.isArray(d.entries)).toBe(true);
  for (const key of Object.keys(d))
    expect(['specVersion', 'host', 'entries', 'extensions', 'signature']).toContain(key);
  const ids = new Set<string>();
  for (const e of d.entries as Entry[]) {
    expect(typeof e.identifier).toBe('string');
    expect(() => new URL(e.identifier)).not.toThrow(); // an absolute URI
    expect(typeof e.type).toBe('string');
    expect((e.url === undefined) !== (e.data === undefined)).toBe(true); // exactly one of url, data
    expect(() => new URL(e.url!)).not.toThrow();
    if (e.displayName !== undefined) expect(typeof e.displayName).toBe('string');
    if (e.description !== undefined) expect(typeof e.description).toBe('string');
    if (e.tags !== undefined) expect(e.tags.every((t) => typeof t === 'string')).toBe(true);
    if (e.updatedAt !== undefined) expect(new Date(e.updatedAt).toISOString()).toBe(e.updatedAt);
    for (const key of Object.keys(e))
      expect([
        'identifier',
        'type',
        'url',
        'data',
        'displayName',
        'description',
        'tags',
        'version',
        'updatedAt',
        'publisher',
        'digest',
        'extensions',
        'trustManifests',
      ]).toContain(key);
    expect(ids.has(e.identifier)).toBe(false); // identifier unique (no entry carries a version)
    ids.add(e.identifier);
  }
}

/** Every card entry reachable from the root, following nested catalogs (visited URLs tracked, depth bounded as the draft recommends). */
async function crawl(
  maxDepth = 4,
): Promise<{ cards: Map<string, Entry>; documents: { url: string; entries: Entry[] }[] }> {
  const cards = new Map<string, Entry>();
  const documents: { url: string; entries: Entry[] }[] = [];
  const seen = new Set<string>();
  const visit = async (url: string, depth: number) => {
    if (seen.has(url) || depth > maxDepth) return;
    seen.add(url);
    const { res, body } = await fetchCatalog(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/ai-catalog\+json/);
    expectCatalogShape(body);
    documents.push({ url, entries: body.entries });
    for (const e of body.entries) {
      if (e.type === CARD_TYPE) cards.set(e.identifier, e);
      else if (e.type === NESTED_TYPE) await visit(e.url!, depth + 1);
    }
  };
  await visit(CATALOG_URL(), 0);
  return { cards, documents };
}

beforeAll(async () => {
  hub = await startTestHub();
  owner = await register(hub, 'cat-owner', { name: 'Catalog Owner', description: 'Owns the spaces of this test' });
  await register(hub, 'cat-plain');
  const made = await rest(hub, 'POST', '/api/spaces', {
    token: owner.token,
    body: { name: 'cat-space', description: 'Where catalog work is declared' },
  });
  expect(made.status).toBe(201);
});
afterAll(() => hub.destroy());

describe('GET /.well-known/ai-catalog.json', () => {
  it('answers anyone, without a token, an AI Catalog 1.0 document with its media type', async () => {
    const { res, body } = await fetchCatalog();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/ai-catalog\+json/);
    expectCatalogShape(body);
    expect(body).toMatchObject({ host: { displayName: 'Muster', identifier: hub.url } });
  });

  it('lists the hub, the memory base, every space and every agent, each by its base and card URL', async () => {
    const { body } = await fetchCatalog();
    const byId = new Map(body!.entries.map((e) => [e.identifier, e]));
    const bases = [
      hub.url,
      `${hub.url}memory/`,
      `${hub.url}spaces/cat-space/`,
      `${hub.url}agents/cat-owner/`,
      `${hub.url}agents/cat-plain/`,
    ];
    for (const b of bases) {
      expect(byId.get(b), b).toMatchObject({ type: CARD_TYPE, url: `${b}.well-known/agent-card.json` });
    }
    expect(byId.get(`${hub.url}agents/cat-owner/`)).toMatchObject({
      displayName: 'Catalog Owner',
      description: 'Owns the spaces of this test',
      tags: ['agent'],
    });
    expect(byId.get(`${hub.url}agents/cat-plain/`)).toMatchObject({ displayName: 'cat-plain', tags: ['agent'] });
    expect(byId.get(`${hub.url}spaces/cat-space/`)).toMatchObject({
      displayName: 'cat-space',
      description: 'Where catalog work is declared',
      tags: ['space'],
      updatedAt: expect.any(String),
    });
    expect(byId.get(hub.url)).toMatchObject({ displayName: 'Muster', tags: ['hub'] });
    expect(byId.get(`${hub.url}memory/`)).toMatchObject({ displayName: 'Muster memory', tags: ['memory'] });
    expect(body!.entries.filter((e) => e.type === CARD_TYPE)).toHaveLength(bases.length);
  });

  it("every card URL serves that base's card, with the name and description the entry shows", async () => {
    const { body } = await fetchCatalog();
    for (const entry of body!.entries.filter((e) => e.type === CARD_TYPE)) {
      const res = await fetch(entry.url!, { headers: { 'a2a-version': '1.0' } }); // without a version the card is 0.3's (discovery.test.ts)
      expect(res.status, entry.url).toBe(200);
      const json = await res.json();
      const card = AgentCard.fromJSON(json);
      expect(AgentCard.toJSON(card)).toEqual(json);
      expect(card.supportedInterfaces[0]?.url).toBe(entry.identifier);
      expect(card.name).toBe(entry.displayName);
      expect(card.description).toBe(entry.description);
    }
  });

  it('lists an agent as soon as it is registered, and a space as soon as it is made', async () => {
    const before = await fetchCatalog();
    expect(before.body!.entries.some((e) => e.identifier === `${hub.url}agents/cat-newcomer/`)).toBe(false);
    await register(hub, 'cat-newcomer', { name: 'Newcomer' });
    await rest(hub, 'POST', '/api/spaces', { token: owner.token, body: { name: 'cat-later' } });
    const after = await fetchCatalog();
    const ids = after.body!.entries.map((e) => e.identifier);
    expect(ids).toContain(`${hub.url}agents/cat-newcomer/`);
    expect(ids).toContain(`${hub.url}spaces/cat-later/`);
    expect(after.res.headers.get('etag')).not.toBe(before.res.headers.get('etag'));
    const card = await fetch(`${hub.url}agents/cat-newcomer/.well-known/agent-card.json`);
    expect(((await card.json()) as { name: string }).name).toBe('Newcomer');
  });

  it('is cacheable: max-age, an ETag over the body, 304 to a matching If-None-Match, 200 once a base is added', async () => {
    const first = await fetchCatalog();
    expect(first.res.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = first.res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await fetchCatalog(CATALOG_URL());
    expect(again.res.headers.get('etag')).toBe(etag); // nothing changed: the same document
    const cached = await fetch(CATALOG_URL(), { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    await register(hub, 'cat-etag');
    const changed = await fetch(CATALOG_URL(), { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('ignores a missing token but refuses a bad one, as every route does', async () => {
    const bad = await fetch(CATALOG_URL(), { headers: { authorization: 'Bearer not-a-token' } });
    expect(bad.status).toBe(401);
    const good = await fetch(CATALOG_URL(), { headers: { authorization: `Bearer ${owner.token}` } });
    expect(good.status).toBe(200);
  });

  it('refuses a query it does not know, and a page token it did not issue', async () => {
    const unknown = await rest(hub, 'GET', '/.well-known/ai-catalog.json?limit=5');
    expect(unknown.status).toBe(400);
    const forged = await rest(hub, 'GET', '/.well-known/ai-catalog.json?agents=bm90LWEtdG9rZW4');
    expect(forged.status).toBe(400);
    expect(forged.body.error.fields[0].field).toBe('agents');
    const both = await rest(hub, 'GET', '/.well-known/ai-catalog.json?agents=x&spaces=ab');
    expect(both.status).toBe(400);
  });

  it('splits a big hub into nested pages: the root links every page, each page the next, and following them finds every base', async () => {
    const saved = { ...CATALOG };
    CATALOG.page = 3;
    try {
      for (let i = 0; i < 6; i++) await register(hub, `cat-many-${i}`);
      for (let i = 0; i < 3; i++)
        await rest(hub, 'POST', '/api/spaces', { token: owner.token, body: { name: `cat-room-${i}` } });
      const agents = (await rest(hub, 'GET', '/api/agents?limit=50')).body;
      const spaces = (await rest(hub, 'GET', '/api/spaces?limit=50')).body;
      const handles: string[] = (agents.data ?? agents.agents).map((a: { handle: string }) => a.handle);
      const names: string[] = spaces.data.map((s: { name: string }) => s.name);
      expect(handles.length).toBeGreaterThan(9);
      expect(names.length).toBeGreaterThan(3);

      const root = await fetchCatalog();
      expectCatalogShape(root.body);
      const direct = root.body.entries.filter((e) => e.type === CARD_TYPE);
      expect(direct).toHaveLength(2 + 3 + 3); // the hub, memory, a page of spaces and one of agents
      const links = root.body.entries.filter((e) => e.type === NESTED_TYPE);
      expect(links.filter((l) => l.tags?.includes('agents'))).toHaveLength(Math.ceil(handles.length / 3) - 1);
      expect(links.filter((l) => l.tags?.includes('spaces'))).toHaveLength(Math.ceil(names.length / 3) - 1);
      for (const l of links) expect(l.url).toBe(l.identifier);

      // Every page one level below the root (so a client that nests at most once still sees all).
      const { cards, documents } = await crawl(1);
      const expected = [
        hub.url,
        `${hub.url}memory/`,
        ...names.map((n) => `${hub.url}spaces/${n}/`),
        ...handles.map((h) => `${hub.url}agents/${h}/`),
      ];
      expect([...cards.keys()].sort()).toEqual([...expected].sort());
      for (const d of documents.slice(1)) {
        expect(d.entries.filter((e) => e.type === CARD_TYPE).length).toBeLessThanOrEqual(3);
      }
      // Following only the pages' own next links also finds every agent.
      const chained: string[] = [];
      let next: string | undefined = links.find((l) => l.tags?.includes('agents'))!.url;
      while (next) {
        const page = await fetchCatalog(next);
        chained.push(...page.body!.entries.filter((e) => e.type === CARD_TYPE).map((e) => e.identifier));
        next = page.body!.entries.find((e) => e.type === NESTED_TYPE)?.url;
      }
      expect([...direct.filter((e) => e.identifier.includes('/agents/')).map((e) => e.identifier), ...chained]).toEqual(
        handles.map((h) => `${hub.url}agents/${h}/`),
      );

      // A new agent shows on the last page at once, and a new page link when it fills one.
      for (let i = 6; i < 9; i++) await register(hub, `cat-many-${i}`);
      const grown = await crawl(1);
      for (let i = 0; i < 9; i++) expect(grown.cards.has(`${hub.url}agents/cat-many-${i}/`)).toBe(true);

      // A space named to sort first moves every page of spaces along by one: the root's links follow.
      await rest(hub, 'POST', '/api/spaces', { token: owner.token, body: { name: 'cat-aa-first' } });
      const moved = await crawl(1);
      for (const n of [...names, 'cat-aa-first']) expect(moved.cards.has(`${hub.url}spaces/${n}/`), n).toBe(true);
    } finally {
      Object.assign(CATALOG, saved);
    }
  });
});
