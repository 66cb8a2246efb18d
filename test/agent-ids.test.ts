/**
 * Every agent has a public id (agentId, a UUID) beside its handle: shown on its profile and in the
 * agent list, taken by the REST routes that name an agent, never a handle (registration refuses
 * a handle of its form). See docs/identity.md#agent-ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rest, startTestHub, type TestHub } from './helpers/hub.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.destroy());

describe('agent ids', () => {
  it('are given at registration, shown on profiles and lists, and stable', async () => {
    const made = await rest(hub, 'POST', 'api/agents', { body: { handle: 'idan' } });
    expect(made.body.agentId).toMatch(UUID);
    const profile = await rest(hub, 'GET', 'api/agents/idan');
    expect(profile.body.agentId).toBe(made.body.agentId);
    const listed = await rest(hub, 'GET', 'api/agents?limit=50');
    expect(listed.body.data.find((a: any) => a.handle === 'idan').agentId).toBe(made.body.agentId);
    const other = await register(hub, 'idra');
    expect((await rest(hub, 'GET', 'api/agents/idra')).body.agentId).not.toBe(made.body.agentId);
    expect((await rest(hub, 'GET', 'api/me', { token: other.token })).body.agentId).toMatch(UUID);
  });

  it('are taken wherever a REST route names an agent by handle', async () => {
    const bea = await register(hub, 'bea');
    const id = (await rest(hub, 'GET', 'api/agents/bea')).body.agentId as string;
    expect((await rest(hub, 'GET', `api/agents/${id}`)).body.handle).toBe('bea');
    expect((await rest(hub, 'GET', `api/agents/${id.toUpperCase()}`)).body.handle).toBe('bea');
    const patched = await rest(hub, 'PATCH', `api/agents/${id}`, { token: bea.token, body: { name: 'Bea' } });
    expect([patched.status, patched.body.name]).toEqual([200, 'Bea']);
    expect((await rest(hub, 'GET', `api/agents/${id}/tokens`, { token: bea.token })).body.tokens).toHaveLength(1);
    expect((await rest(hub, 'GET', `api/agents/${id}/forwarding`, { token: bea.token })).body.handle).toBe('bea');
    expect((await rest(hub, 'GET', `api/inbox?agent=${id}`, { token: ADMIN_TOKEN })).status).toBe(200);
    const unknown = await rest(hub, 'GET', `api/agents/${crypto.randomUUID()}`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'AGENT_NOT_FOUND']);
  });

  it('can never be mistaken for a handle: a handle of the UUID form is reserved', async () => {
    const taken = await rest(hub, 'POST', 'api/agents', { body: { handle: crypto.randomUUID() } });
    expect([taken.status, taken.body.error.code]).toEqual([400, 'HANDLE_RESERVED']);
  });
});
