/**
 * The directory's full-text search, one engine behind every door: GET /api/agents?q=, the hub's
 * directory.search skill (through the SDK client at the hub base), the MCP directory tool and the
 * ARD search endpoint (POST /search) find the same agents in the same order. An agent is found by
 * its skills' descriptions and tags, a match in the handle or name ranks first, pages follow the
 * ranking, and the index follows every profile write. On SQLite, or PostgreSQL with MUSTER_TEST_PG.
 */
import { Message, SendMessageRequest } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, connectMcp, type McpConnection } from './helpers/mcp.js';
import { sdkClient } from './helpers/sdk.js';

let hub: TestHub;
let asker: Registered;
let mcp: McpConnection;

const handles = (agents: { handle: string }[]) => agents.map((a) => a.handle);
const restFound = async (q: string, extra = '') => {
  const res = await rest(hub, 'GET', `api/agents?q=${encodeURIComponent(q)}${extra}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: { handle: string }[]; hasMore: boolean; cursor?: string };
};
const ard = (body: unknown) => rest(hub, 'POST', 'search', { body });

beforeAll(async () => {
  hub = await startTestHub();
  const profiles: [string, Record<string, unknown>][] = [
    // Found through a skill's description and its tag only.
    [
      'ds-linguist',
      {
        name: 'Linguist',
        skills: [
          {
            id: 'en-de',
            name: 'Translate',
            description: 'Translates English text into German',
            tags: ['german'],
            examples: ['Translate "good morning"'],
          },
        ],
      },
    ],
    // Found through a skill's tag alone.
    ['ds-tagged', { skills: [{ id: 'proof', name: 'Proofread', description: 'Checks spelling', tags: ['german'] }] }],
    // Found through its handle: ranks first.
    ['german-desk', { description: 'A desk' }],
    [
      'ds-unrelated',
      { description: 'Cooks pasta', skills: [{ id: 'cook', name: 'Cook', description: 'Italian food' }] },
    ],
  ];
  for (const [handle, profile] of profiles) {
    const agent = await register(hub, handle);
    expect((await rest(hub, 'PATCH', `api/agents/${handle}`, { token: agent.token, body: profile })).status).toBe(200);
  }
  asker = await register(hub, 'ds-asker');
  mcp = await connectMcp('http', hub, asker.token);
});
afterAll(async () => {
  await mcp?.close();
  await hub?.destroy();
});

describe('the directory search', () => {
  it('finds an agent by its skill description and tag, a handle match first, and not the others', async () => {
    const found = handles((await restFound('german')).data);
    expect(found[0]).toBe('german-desk');
    expect([...found].sort()).toEqual(['ds-linguist', 'ds-tagged', 'german-desk']);
    // Every word must be found, each as a word or a word's start, in any field.
    expect(handles((await restFound('translates germ')).data)).toEqual(['ds-linguist']);
    expect(handles((await restFound('ENGLISH morning')).data)).toEqual(['ds-linguist']); // an example's word
    expect(handles((await restFound('german pasta')).data)).toEqual([]);
    expect(handles((await restFound('the')).data)).toEqual([]); // no word to look for
  });

  it('pages follow the ranking: every agent once, in the order of one page', async () => {
    const whole = handles((await restFound('german', '&limit=50')).data);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await restFound('german', `&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.data).toHaveLength(1);
      seen.push(...handles(page.data));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual(whole);
  });

  it('is the same engine at the hub base (directory.search through the SDK) and in the MCP tool', async () => {
    const order = handles((await restFound('german')).data);
    const sdk = await sdkClient(hub.url, asker.token);
    const answer = await sdk.sendMessage(
      SendMessageRequest.fromJSON({
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [{ data: { skill: 'directory.search', args: { q: 'german' } } }],
        },
      }),
    );
    const message = Message.toJSON(answer as Message) as any;
    expect(handles(message.parts[1].data.agents)).toEqual(order);

    const tool = await callTool(mcp.client, 'muster_directory_search', { q: 'german' });
    expect(tool.isError, tool.text).toBe(false);
    expect(handles(tool.structured.items)).toEqual(order);
  });

  it('follows every profile write: a skill removed is no longer found, a new one is', async () => {
    const agent = await register(hub, 'ds-changing');
    const patch = (body: unknown) => rest(hub, 'PATCH', 'api/agents/ds-changing', { token: agent.token, body });
    expect((await patch({ skills: [{ id: 'sing', name: 'Sing', description: 'Yodels' }] })).status).toBe(200);
    expect(handles((await restFound('yodel')).data)).toEqual(['ds-changing']);
    expect((await patch({ skills: [{ id: 'hum', name: 'Hum', description: 'Hums softly' }] })).status).toBe(200);
    expect(handles((await restFound('yodel')).data)).toEqual([]);
    expect(handles((await restFound('hums')).data)).toEqual(['ds-changing']);
  });
});

describe('POST /search (Agentic Resource Discovery v0.9)', () => {
  it('answers ranked catalog entries with a score and its source, the same agents in the same order', async () => {
    const order = handles((await restFound('german')).data);
    const res = await ard({ query: { text: 'german' } });
    expect(res.status).toBe(200);
    const results = res.body.results as { identifier: string; score: number; source: string }[];
    expect(results.map((r) => r.identifier)).toEqual(order.map((h) => `${hub.url}agents/${h}/`));
    expect(results[0]).toMatchObject({
      type: 'application/a2a-agent-card+json',
      url: `${hub.url}agents/german-desk/.well-known/agent-card.json`,
      displayName: 'german-desk',
      source: hub.url,
    });
    for (const r of results) expect(r.score).toSatisfy((s: number) => Number.isInteger(s) && s >= 0 && s <= 100);
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score); // the handle's match above the rest
  });

  it('pages with pageSize and pageToken, filters by tag, capability and type, and refuses what it cannot answer', async () => {
    const first = await ard({ query: { text: 'german' }, pageSize: 2 });
    expect(first.body.results).toHaveLength(2);
    const second = await ard({ query: { text: 'german' }, pageSize: 2, pageToken: first.body.pageToken });
    expect(second.body.results).toHaveLength(1);
    expect(second.body.pageToken).toBeUndefined();

    const ids = async (filter: unknown) =>
      ((await ard({ query: { text: 'german', filter } })).body.results as { identifier: string }[]).map(
        (r) => r.identifier,
      );
    expect(await ids({ capabilities: ['en-de'] })).toEqual([`${hub.url}agents/ds-linguist/`]);
    expect(await ids({ tags: 'german', type: ['application/a2a-agent-card+json'] })).toHaveLength(2);
    expect(await ids({ type: 'application/mcp-server-card+json' })).toEqual([]);

    const unknown = await ard({ query: { text: 'german', filter: { publisher: 'x' } } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('publisher');
    expect((await ard({ query: {} })).status).toBe(400);
    const badToken = await ard({ query: { text: 'german' }, pageToken: 'nonsense' });
    expect(badToken.status).toBe(400);
    expect(badToken.body.error.fields[0].field).toBe('pageToken');
  });

  it('is named in the AI Catalog as a registry whose base is the hub', async () => {
    const catalog = (await fetch(`${hub.url}.well-known/ai-catalog.json`).then((r) => r.json())) as {
      entries: unknown[];
    };
    expect(catalog.entries).toContainEqual(
      expect.objectContaining({ type: 'application/ai-registry+json', url: hub.url, identifier: `${hub.url}search` }),
    );
  });
});
