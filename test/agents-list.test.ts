/** GET /api/agents: every agent's public profile, paged in registration order, for anyone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rest, startTestHub, type TestHub } from './helpers/hub.js';

let hub: TestHub;
const HANDLES = ['list-c', 'list-a', 'list-e', 'list-b', 'list-d'];

beforeAll(async () => {
  hub = await startTestHub();
  // One after the other: registration order is the list's order, whatever the handles.
  for (const handle of HANDLES)
    await register(
      hub,
      handle,
      handle === 'list-a' ? { name: 'A', description: 'first of all', endpoint: 'https://a.example/a2a/' } : {},
    );
});
afterAll(() => hub?.destroy());

describe('GET /api/agents', () => {
  it('pages through every agent once, in registration order, with public profiles only', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await rest(hub, 'GET', `api/agents?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((a: { handle: string }) => a.handle));
      expect(page.body.hasMore).toBe(page.body.cursor !== undefined);
      cursor = page.body.cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(HANDLES);
    expect(pages).toBe(3);

    const all = await rest(hub, 'GET', 'api/agents');
    expect(all.body.hasMore).toBe(false);
    const defaults = ['text/plain', 'application/json']; // the media modes of an agent that declared none
    expect(all.body.data[1]).toEqual({
      handle: 'list-a',
      agentId: expect.any(String),
      name: 'A',
      description: 'first of all',
      inputModes: defaults,
      outputModes: defaults,
      createdAt: expect.any(String),
      a2a: `${hub.url}agents/list-a/`,
      card: `${hub.url}agents/list-a/.well-known/agent-card.json`,
    });
    expect(JSON.stringify(all.body)).not.toContain('a.example'); // the endpoint is not listed
  });

  it('reads the same for anyone: no token, an agent, the admin; a bad token is still refused', async () => {
    const agent = await register(hub, 'list-reader');
    const [anonymous, asAgent, asAdmin, bad] = await Promise.all([
      rest(hub, 'GET', 'api/agents?limit=3'),
      rest(hub, 'GET', 'api/agents?limit=3', { token: agent.token }),
      rest(hub, 'GET', 'api/agents?limit=3', { token: ADMIN_TOKEN }),
      rest(hub, 'GET', 'api/agents', { token: 'mst_nope' }),
    ]);
    expect(asAgent.body).toEqual(anonymous.body);
    expect(asAdmin.body).toEqual(anonymous.body);
    expect(bad.status).toBe(401);
  });

  it('refuses a bad limit, a cursor it did not issue and an unknown parameter, naming the parameter', async () => {
    const [zero, many, forged, unknown] = await Promise.all([
      rest(hub, 'GET', 'api/agents?limit=0'),
      rest(hub, 'GET', 'api/agents?limit=51'),
      rest(hub, 'GET', 'api/agents?cursor=not-ours'),
      rest(hub, 'GET', 'api/agents?state=open'),
    ]);
    for (const r of [zero, many, forged, unknown]) {
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_PARAMS');
    }
    expect(zero.body.error.fields[0]).toMatchObject({ field: 'limit', description: 'must be between 1 and 50' });
    expect(forged.body.error.fields[0].field).toBe('cursor');
    expect(JSON.stringify(unknown.body)).toContain('state');
  });
});
