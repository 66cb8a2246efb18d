/**
 * Spaces, where work intents are declared: made, read, listed, changed and their members set over
 * REST, and each space's agent card. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, rest, type Registered, type TestHub } from './helpers/hub.js';
import { startIntentsHub, type IntentsHub } from './helpers/intents.js';

let hub: TestHub;
let owner: Registered, worker: Registered, outsider: Registered;
let spaceUrl: IntentsHub['spaceUrl'];
const admin = { token: ADMIN_TOKEN };

beforeAll(async () => {
  ({ hub, owner, worker, outsider, spaceUrl } = await startIntentsHub());
});
afterAll(() => hub.destroy());

describe('spaces', () => {
  it('an agent makes a space it owns; names are checked; anyone reads it; only the owner or admin changes it', async () => {
    const made = await rest(hub, 'POST', 'api/spaces', {
      token: outsider.token,
      body: { name: 'outside-work', claim: 'open' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'outside-work',
      claim: 'open',
      owner: 'outsider',
      orchestratorPriority: 1,
      a2a: `${hub.url}spaces/outside-work/`,
    });
    expect((await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'outside-work' } })).status).toBe(
      409,
    );
    const bad = await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'Bad Name' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields[0].field).toBe('name');
    expect((await rest(hub, 'POST', 'api/spaces', { body: { name: 'no-token' } })).status).toBe(401);
    const byAdmin = await rest(hub, 'POST', 'api/spaces', { ...admin, body: { name: 'admins' } });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.owner).toBeUndefined();

    const read = await rest(hub, 'GET', 'api/spaces/links');
    expect(read.body).toMatchObject({ name: 'links', description: 'The links service', claim: 'members' });
    expect(read.body.members.map((m: any) => [m.handle, m.role])).toEqual([
      ['orch', 'orchestrator'],
      ['other', 'worker'],
      ['worker', 'worker'],
    ]);
    expect((await rest(hub, 'GET', 'api/spaces/nope')).status).toBe(404);
    const listed = await rest(hub, 'GET', 'api/spaces?limit=2');
    expect(listed.body.data.map((s: any) => s.name)).toEqual(['admins', 'links']);
    expect(listed.body.hasMore).toBe(true);
    const next = await rest(hub, 'GET', `api/spaces?limit=2&cursor=${listed.body.cursor}`);
    expect(next.body.data.map((s: any) => s.name)).toEqual(['outside-work']);

    expect(
      (await rest(hub, 'PATCH', 'api/spaces/outside-work', { token: owner.token, body: { description: 'mine now' } }))
        .status,
    ).toBe(403);
    const patched = await rest(hub, 'PATCH', 'api/spaces/outside-work', {
      token: outsider.token,
      body: { description: 'Work from outside', orchestratorPriority: 3 },
    });
    expect(patched.body).toMatchObject({ description: 'Work from outside', orchestratorPriority: 3 });
    expect((await rest(hub, 'PATCH', 'api/spaces/outside-work', { ...admin, body: { claim: 'maybe' } })).status).toBe(
      400,
    );
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/worker', {
          token: worker.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/worker', {
          token: outsider.token,
          body: { role: 'boss' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/ghost', {
          token: outsider.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await rest(hub, 'PUT', 'api/spaces/outside-work/members/worker', {
          token: outsider.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await rest(hub, 'DELETE', 'api/spaces/outside-work/members/worker', { token: outsider.token })).status,
    ).toBe(204);
    expect(
      (await rest(hub, 'DELETE', 'api/spaces/outside-work/members/worker', { token: outsider.token })).status,
    ).toBe(404);
  });

  it("serves the space's card: its description, JSON-RPC for 1.0 and 0.3 and HTTP+JSON, the declare-intent skill, the bearer scheme", async () => {
    const card = (
      await rest(hub, 'GET', 'spaces/links/.well-known/agent-card.json', { headers: { 'a2a-version': '1.0' } })
    ).body;
    expect(card.name).toBe('links');
    expect(card.description).toBe('The links service');
    expect(card.supportedInterfaces.map((i: any) => [i.url, i.protocolVersion])).toEqual([
      [spaceUrl('links'), '1.0'],
      [spaceUrl('links'), '0.3'],
      [spaceUrl('links'), '1.0'],
    ]);
    expect(card.skills.map((s: any) => s.id)).toEqual(['declare-intent']);
    expect(card.skills[0].examples.length).toBeGreaterThan(0);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect((await rest(hub, 'GET', 'spaces/nope/.well-known/agent-card.json')).status).toBe(404);
  });
});
