/**
 * Agent profiles (PATCH /api/agents/{handle}): who may change one, the bounds and their
 * refusals, the card listing declared skills beside the hub's. On SQLite, or PostgreSQL with
 * MUSTER_TEST_PG. The directory that searches them is in directory.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchCard, verifyWithJose, verifyWithSdk } from './helpers/card-signatures.js';
import { ADMIN_TOKEN, register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let ada: Registered, bob: Registered;

const SUMMARIZE = {
  id: 'summarize-pdf',
  name: 'Summarize a PDF',
  description: 'Reads a PDF and answers a one-page summary.',
  tags: ['pdf', 'summaries'],
  examples: ['Summarize the attached report'],
};
const TRANSLATE = { id: 'translate', name: 'Translate', description: 'Translates text between English and French.' };

beforeAll(async () => {
  hub = await startTestHub();
  [ada, bob] = [await register(hub, 'prof-ada', { name: 'Ada' }), await register(hub, 'prof-bob')];
});
afterAll(() => hub?.destroy());

const patch = (handle: string, body: unknown, token?: string) =>
  rest(hub, 'PATCH', `api/agents/${handle}`, { body, ...(token ? { token } : {}) });
const fields = (r: { body: any }) => (r.body.error.fields as { field: string }[]).map((f) => f.field);

describe('PATCH /api/agents/{handle}', () => {
  it('the agent sets its profile; GET shows it, and a later patch changes only what it names', async () => {
    const set = await patch(
      ada.handle,
      { description: 'Reads and summarizes documents', skills: [SUMMARIZE, TRANSLATE], tags: ['documents', 'french'] },
      ada.token,
    );
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      handle: ada.handle,
      name: 'Ada',
      description: 'Reads and summarizes documents',
      skills: [SUMMARIZE, TRANSLATE],
      tags: ['documents', 'french'],
    });
    expect(set.body.card).toBe(`${hub.url}agents/${ada.handle}/.well-known/agent-card.json`);
    expect((await rest(hub, 'GET', `api/agents/${ada.handle}`)).body).toEqual(set.body);

    const renamed = await patch(ada.handle, { name: 'Ada L.' }, ada.token);
    expect(renamed.body).toMatchObject({
      name: 'Ada L.',
      description: 'Reads and summarizes documents',
      skills: [SUMMARIZE, TRANSLATE],
      tags: ['documents', 'french'],
    });
    const cleared = await patch(ada.handle, { description: null, tags: [] }, ada.token);
    expect(cleared.body.description).toBeUndefined();
    expect(cleared.body.tags).toBeUndefined();
    expect(cleared.body.skills).toEqual([SUMMARIZE, TRANSLATE]);
    await patch(
      ada.handle,
      { description: 'Reads and summarizes documents', tags: ['documents', 'french'] },
      ada.token,
    );
  });

  it('the admin may patch any agent; another agent is 403, no token 401, an unknown agent 404', async () => {
    expect((await patch(bob.handle, { description: 'Set by the admin' }, ADMIN_TOKEN)).body.description).toBe(
      'Set by the admin',
    );
    const other = await patch(ada.handle, { name: 'Mallory' }, bob.token);
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    expect((await patch(ada.handle, { name: 'Mallory' })).status).toBe(401);
    expect((await patch('prof-nobody', { name: 'x' }, ADMIN_TOKEN)).status).toBe(404);
    expect((await rest(hub, 'GET', `api/agents/${ada.handle}`)).body.name).toBe('Ada L.');
  });

  it('refuses bad input with 400, naming each field', async () => {
    const many = Array.from({ length: 21 }, (_, i) => ({ id: `s${i}`, name: `Skill ${i}`, description: 'd' }));
    const cases: [unknown, string][] = [
      [{ skills: many }, 'skills'],
      [{ skills: [TRANSLATE, { ...SUMMARIZE, id: 'translate' }] }, 'skills[1].id'],
      [{ skills: [{ name: 'No id', description: 'd' }] }, 'skills[0].id'],
      [{ skills: [{ id: 'has space', name: 'n', description: 'd' }] }, 'skills[0].id'],
      [{ skills: [{ id: 'x', name: '', description: 'd' }] }, 'skills[0].name'],
      [{ skills: [{ id: 'x', name: 'n', description: 'd'.repeat(1001) }] }, 'skills[0].description'],
      [{ skills: [{ id: 'x', name: 'n', description: 'd', tags: ['Upper'] }] }, 'skills[0].tags[0]'],
      [{ skills: [{ id: 'x', name: 'n', description: 'd', colour: 'red' }] }, 'skills[0].colour'],
      [{ skills: [{ id: 'direct-task', name: 'n', description: 'd' }] }, 'skills[0].id'],
      [{ skills: [TRANSLATE, { id: 'directory.search', name: 'n', description: 'd' }] }, 'skills[1].id'],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
      [{ tags: ['ok', 'not ok'] }, 'tags[1]'],
      [{ tags: ['same', 'same'] }, 'tags[1]'],
      [{ name: 'n'.repeat(101) }, 'name'],
      [{ description: 5 }, 'description'],
      [{ endpoint: 'https://x.example/' }, 'endpoint'],
      [{}, ''],
    ];
    for (const [body, field] of cases) {
      const r = await patch(ada.handle, body, ada.token);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_PARAMS');
      expect(fields(r), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    const reserved = await patch(
      ada.handle,
      { skills: [{ id: 'direct-task', name: 'n', description: 'd' }] },
      ada.token,
    );
    expect(reserved.body.error.message).toContain("'direct-task' is a skill the hub itself lists");
    expect((await rest(hub, 'GET', `api/agents/${ada.handle}`)).body.skills).toEqual([SUMMARIZE, TRANSLATE]);
  });

  it("the agent's card lists the hub's skills, then the declared ones, signed (1.0 and 0.3)", async () => {
    for (const version of ['1.0', '0.3'] as const) {
      const { card } = await fetchCard(`${hub.url}agents/${ada.handle}/.well-known/agent-card.json`, version);
      const skills = card['skills'] as { id: string; tags: string[] }[];
      expect(skills.map((s) => s.id)).toEqual(['direct-task', 'summarize-pdf', 'translate']);
      expect(skills[1]).toEqual(SUMMARIZE);
      // A2A requires tags: a skill declared without them shows the agent's.
      expect(skills[2]).toEqual({ ...TRANSLATE, tags: ['documents', 'french'] });
      expect(card['description']).toBe('Reads and summarizes documents');
      expect(card['name']).toBe('Ada L.');
      await verifyWithSdk(card);
      await verifyWithJose(card, `${hub.url}.well-known/jwks.json`);
    }
  });

  it('a profile survives a restart', async () => {
    await hub.restart();
    expect((await rest(hub, 'GET', `api/agents/${ada.handle}`)).body.skills).toEqual([SUMMARIZE, TRANSLATE]);
  });
});
