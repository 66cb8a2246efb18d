/**
 * Vorn's forwarding switch, as its OpenAPI document describes it, over raw HTTP against a real
 * A2A endpoint (the official SDK's server): `GET`/`PUT /v1/a2a/agents/{agent_id}/forwarding` for
 * the agent's operator only (404 to anyone else), 400 VALIDATION_ERROR, 409
 * FORWARDING_NOT_AVAILABLE before the endpoint's control is proven, 429 past 30 changes an hour;
 * on, a task sent through Vorn reaches the endpoint and tasks/get reports what it answered in
 * `metadata["vorn.forwarding"]`; off, new tasks stay at the hub. On SQLite and two PostgreSQL nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../helpers/database.js';
import { awayFromWindowEdge, EDGE_WAIT_TIMEOUT_MS, rest, rpc } from '../helpers/hub.js';
import { startA2AEndpoint } from '../helpers/a2a-endpoint.js';
import { eventually, sleep } from '../helpers/nodes.js';
import { agent, operator, task, vornNodes, type Agent } from './vorn-fixture.js';

describe(`Vorn forwarding at /v1/a2a/agents/{agent_id}/forwarding (${testDialect})`, () => {
  const { node } = vornNodes('dialect_vorn_forwarding', {
    MUSTER_ALLOW_PRIVATE_TARGETS: '1',
    MUSTER_DELIVERY_RETRIES: '1,1,2',
  });
  let endpoint: Awaited<ReturnType<typeof startA2AEndpoint>>;
  let olga: { handle: string; token: string };
  let otto: { handle: string; token: string };
  let fwd: Agent, ada: Agent;

  beforeAll(async () => {
    endpoint = await startA2AEndpoint();
    olga = await operator(node(0), 'olga');
    otto = await operator(node(1), 'otto');
    fwd = await agent(node(0), 'fwd', olga.token, { endpoint: endpoint.base });
    ada = await agent(node(1), 'ada');
  });
  afterAll(() => endpoint?.close());

  const path = (id: string) => `v1/a2a/agents/${id}/forwarding`;
  const read = (i: number, token?: string, id = fwd.id) => rest(node(i), 'GET', path(id), token ? { token } : {});
  const put = (i: number, body: unknown, token: string | undefined = olga.token, id = fwd.id) =>
    rest(node(i), 'PUT', path(id), { ...(token ? { token } : {}), body });

  it('shows the switch off and unavailable until the endpoint is proven, and refuses to switch it on', async () => {
    const before = await read(0, olga.token);
    expect(before.body).toEqual({
      agent_id: fwd.id,
      enabled: false,
      available: false,
      external_endpoint_url: endpoint.base,
      control_verified_at: null,
      updated_at: null,
    });
    const early = await put(1, { enabled: true });
    expect([early.status, early.body.code, early.body.status]).toEqual([409, 'FORWARDING_NOT_AVAILABLE', 409]);
  });

  it("is the operator's alone: anyone else gets 404, no token 401, a bad body 400", async () => {
    for (const [token, id] of [
      [fwd.token, fwd.id],
      [otto.token, fwd.id],
      [ada.token, fwd.id],
      [olga.token, ada.id],
      [olga.token, crypto.randomUUID()],
      [olga.token, 'not-an-id'],
    ] as const) {
      expect((await read(1, token, id)).body.code).toBe('NOT_FOUND');
      const switched = await put(0, { enabled: true }, token, id);
      expect([switched.status, switched.body.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect((await read(0)).status).toBe(401);
    expect((await put(1, { enabled: true }, '')).body).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    for (const body of [{}, { enabled: 'yes' }, { enabled: true, also: 1 }]) {
      const bad = await put(0, body);
      expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('on: a task sent through Vorn reaches the endpoint, and tasks/get reports what it answered; off: no more', async () => {
    // The operator proves control natively, naming the agent by its id.
    const challenge = await rest(node(0), 'POST', `api/agents/${fwd.id}/endpoint/challenge`, { token: olga.token });
    endpoint.serveChallenge(challenge.body.challenge);
    expect((await rest(node(1), 'POST', `api/agents/${fwd.id}/endpoint/verify`, { token: olga.token })).status).toBe(
      200,
    );
    const available = await read(1, olga.token);
    expect(available.body).toMatchObject({ available: true, enabled: false, control_verified_at: expect.any(String) });

    const on = await put(0, { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ agent_id: fwd.id, enabled: true, available: true });
    expect((await rest(node(1), 'GET', 'api/agents/fwd/forwarding', { token: olga.token })).body.enabled).toBe(true);

    const id = await task(node(1), ada, 'fwd', 'forward me');
    await eventually('the endpoint receives the task', async () => endpoint.received[0]);
    expect(endpoint.received[0]!.body.params.message.parts).toEqual([{ text: 'forward me' }]);
    const reported = await eventually('tasks/get reports the forward', async () => {
      const got = await rpc(`${node(0).url}v1/a2a/fwd`, 'tasks/get', { id }, { token: ada.token });
      const forwarding = got.body.result.metadata['vorn.forwarding'];
      return forwarding?.state === 'delivered' ? forwarding : undefined;
    });
    expect(reported).toMatchObject({ attempts: 1, http_status: 200, remote_task_id: expect.any(String) });

    const off = await put(1, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, available: true });
    await task(node(0), ada, 'fwd', 'keep me here');
    await sleep(1_500);
    expect(endpoint.received).toHaveLength(1);
  });

  it(
    'counts 30 changes an hour per agent: then 429 RATE_LIMITED, and nothing changes',
    async () => {
      await awayFromWindowEdge(3_600_000, 20_000);
      let last = await put(0, { enabled: false });
      for (let i = 0; last.status === 200 && i < 40; i++) last = await put(i, { enabled: i % 2 === 0 });
      expect([last.status, last.body.code, last.body.status]).toEqual([429, 'RATE_LIMITED', 429]);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
      const kept = (await read(1, olga.token)).body.enabled;
      expect((await put(0, { enabled: !kept })).status).toBe(429);
      expect((await read(1, olga.token)).body.enabled).toBe(kept);
    },
    EDGE_WAIT_TIMEOUT_MS,
  );
});
