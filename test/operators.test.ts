/**
 * Operators: people's accounts, made by the admin, that own the agents they register. Their token
 * (mso_, shown once, stored hashed) reads every task of their agents (GetTask and ListTasks at the
 * agent's base through the official SDK client, the REST inbox, sent and task read) and acts on
 * the agents themselves (profile, tokens, forwarding), never as them. Another operator sees nothing.
 */
import { createHash } from 'node:crypto';
import { GetTaskRequest, ListTasksRequest, StreamResponse } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

let hub: TestHub;
let olga: string; // an operator's token
let oscar: string; // another operator's token

const createOperator = async (handle: string, token = ADMIN_TOKEN) =>
  rest(hub, 'POST', 'api/operators', { token, body: { handle, name: `Operator ${handle}` } });

beforeAll(async () => {
  hub = await startTestHub();
  olga = (await createOperator('olga')).body.token;
  oscar = (await createOperator('oscar')).body.token;
});
afterAll(() => hub.destroy());

describe('creating operators', () => {
  it('the admin creates one: 201 with its profile and its mso_ token, shown once and stored hashed', async () => {
    const res = await createOperator('opal');
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ handle: 'opal', name: 'Operator opal', agents: [] });
    expect(res.body.token).toMatch(/^mso_[A-Za-z0-9_-]{43}$/);
    const dump = JSON.stringify(await hub.db.rows('SELECT * FROM operator_tokens'));
    expect(dump).not.toContain(res.body.token);
    expect(dump).toContain(createHash('sha256').update(res.body.token).digest('hex'));
    const own = await rest(hub, 'GET', 'api/operators/opal', { token: res.body.token });
    expect(own.body).toEqual({ handle: 'opal', name: 'Operator opal', createdAt: expect.any(String), agents: [] });
    expect(JSON.stringify(own.body)).not.toContain(res.body.token);
    expect((await rest(hub, 'GET', 'api/me', { token: res.body.token })).body).toEqual({
      kind: 'operator',
      handle: 'opal',
      agents: [],
    });
  });

  it('anyone but the admin is refused: no token 401, an agent or an operator 403; nothing is stored', async () => {
    const agent = await register(hub, 'not-admin');
    expect((await rest(hub, 'POST', 'api/operators', { body: { handle: 'sneaky' } })).status).toBe(401);
    for (const token of [agent.token, olga]) {
      const res = await createOperator('sneaky', token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect(await hub.db.rows("SELECT handle FROM operators WHERE handle = 'sneaky'")).toEqual([]);
  });

  it("handles follow the agents' rules and share their namespace: bad 400, reserved 400, taken (by either) 409", async () => {
    const bad = await createOperator('Not Valid');
    expect([bad.status, bad.body.error.fields[0].field]).toEqual([400, 'handle']);
    const extra = await rest(hub, 'POST', 'api/operators', {
      token: ADMIN_TOKEN,
      body: { handle: 'op-x', role: 'boss' },
    });
    expect([extra.status, extra.body.error.fields[0].field]).toEqual([400, 'role']);
    const reserved = await createOperator('admin');
    expect([reserved.status, reserved.body.error.code]).toEqual([400, 'HANDLE_RESERVED']);
    expect((await createOperator('olga')).body.error.code).toBe('HANDLE_TAKEN');
    await register(hub, 'agent-first');
    const takenByAgent = await createOperator('agent-first');
    expect([takenByAgent.status, takenByAgent.body.error.code]).toEqual([409, 'HANDLE_TAKEN']);
    const takenByOperator = await rest(hub, 'POST', 'api/agents', { body: { handle: 'oscar' } });
    expect([takenByOperator.status, takenByOperator.body.error.code]).toEqual([409, 'HANDLE_TAKEN']);
  });

  it('an operator rotates and revokes its own token; another operator may not; the old token is 401 at once', async () => {
    const made = await createOperator('rota');
    expect((await rest(hub, 'POST', 'api/operators/rota/token', { token: olga })).status).toBe(403);
    expect((await rest(hub, 'GET', 'api/operators/rota', { token: olga })).status).toBe(403);
    const rotated = await rest(hub, 'POST', 'api/operators/rota/token', { token: made.body.token });
    expect(rotated.body.token).toMatch(/^mso_/);
    expect((await rest(hub, 'GET', 'api/me', { token: made.body.token })).status).toBe(401);
    const tokens = await rest(hub, 'GET', 'api/operators/rota/tokens', { token: rotated.body.token });
    const live = tokens.body.tokens.find((t: { revokedAt?: string }) => t.revokedAt === undefined);
    expect(tokens.body.tokens).toHaveLength(2);
    expect((await rest(hub, 'DELETE', `api/operators/rota/tokens/${live.id}`, { token: ADMIN_TOKEN })).status).toBe(
      204,
    );
    expect((await rest(hub, 'GET', 'api/me', { token: rotated.body.token })).status).toBe(401);
    expect((await rest(hub, 'GET', 'api/operators/nobody-here', { token: ADMIN_TOKEN })).status).toBe(404);
  });
});

describe('agents an operator owns', () => {
  it('an operator registers agents it owns, also when registration needs the admin token', async () => {
    const res = await rest(hub, 'POST', 'api/agents', { token: olga, body: { handle: 'olga-bot' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ handle: 'olga-bot', operator: 'olga' });
    expect((await rest(hub, 'GET', 'api/agents/olga-bot')).body.operator).toBe('olga');
    expect((await rest(hub, 'GET', 'api/operators/olga', { token: olga })).body.agents).toEqual(['olga-bot']);

    const strict = await startTestHub({ MUSTER_REGISTRATION: 'admin' });
    try {
      const op = (await rest(strict, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'strict-op' } }))
        .body.token;
      expect((await rest(strict, 'POST', 'api/agents', { body: { handle: 'walk-in' } })).status).toBe(401);
      const owned = await rest(strict, 'POST', 'api/agents', { token: op, body: { handle: 'strict-bot' } });
      expect(owned.status).toBe(201);
      expect(owned.body.operator).toBe('strict-op');
    } finally {
      await strict.destroy();
    }
  });

  it('its operator updates the profile, rotates and revokes the tokens, reads forwarding; others get 403', async () => {
    const bot = await rest(hub, 'POST', 'api/agents', { token: olga, body: { handle: 'olga-owned' } });
    const stranger = await register(hub, 'stranger');
    for (const token of [oscar, stranger.token]) {
      expect((await rest(hub, 'PATCH', 'api/agents/olga-owned', { token, body: { name: 'Mine' } })).status).toBe(403);
      expect((await rest(hub, 'POST', 'api/agents/olga-owned/token', { token })).status).toBe(403);
      expect((await rest(hub, 'GET', 'api/agents/olga-owned/forwarding', { token })).status).toBe(403);
      expect((await rest(hub, 'POST', 'api/agents/olga-owned/pause', { token })).status).toBe(403);
    }
    const patched = await rest(hub, 'PATCH', 'api/agents/olga-owned', {
      token: olga,
      body: { name: 'Owned Bot', tags: ['owned'] },
    });
    expect(patched.body).toMatchObject({ name: 'Owned Bot', tags: ['owned'], operator: 'olga' });
    expect((await rest(hub, 'GET', 'api/agents/olga-owned/forwarding', { token: olga })).body).toMatchObject({
      enabled: false,
    });
    const forwarding = await rest(hub, 'PUT', 'api/agents/olga-owned/forwarding', {
      token: olga,
      body: { enabled: true },
    });
    expect([forwarding.status, forwarding.body.error.code]).toEqual([409, 'CONFLICT']); // the operator got past the owner check
    const rotated = await rest(hub, 'POST', 'api/agents/olga-owned/token', { token: olga });
    expect((await rest(hub, 'GET', 'api/me', { token: bot.body.token })).status).toBe(401);
    expect((await rest(hub, 'GET', 'api/me', { token: rotated.body.token })).body.handle).toBe('olga-owned');
    const tokens = await rest(hub, 'GET', 'api/agents/olga-owned/tokens', { token: olga });
    const live = tokens.body.tokens.find((t: { revokedAt?: string }) => t.revokedAt === undefined);
    expect((await rest(hub, 'DELETE', `api/agents/olga-owned/tokens/${live.id}`, { token: olga })).status).toBe(204);
    expect((await rest(hub, 'GET', 'api/me', { token: rotated.body.token })).status).toBe(401);
  });
});

describe('what an operator reads, and what it may not do', () => {
  let bot: Registered; // olga's agent
  let peer: Registered;
  let received: string; // a task peer sent to bot
  let sent: string; // a task bot sent to peer
  let elsewhere: string; // a task between two agents olga does not own

  beforeAll(async () => {
    bot = {
      handle: 'olga-reader',
      token: (await rest(hub, 'POST', 'api/agents', { token: olga, body: { handle: 'olga-reader' } })).body.token,
    };
    peer = await register(hub, 'peer');
    await register(hub, 'other');
    received = wire(
      await (await sdkClient(`${hub.url}agents/olga-reader/`, peer.token)).sendMessage(sendRequest('to the bot')),
    ).id;
    sent = wire(
      await (await sdkClient(`${hub.url}agents/peer/`, bot.token)).sendMessage(sendRequest('from the bot')),
    ).id;
    elsewhere = wire(
      await (await sdkClient(`${hub.url}agents/other/`, peer.token)).sendMessage(sendRequest("not olga's")),
    ).id;
  });

  it("reads its agent's tasks with the official SDK: GetTask and ListTasks at the agent's base", async () => {
    const asOlga = await sdkClient(`${hub.url}agents/olga-reader/`, olga);
    const got = wire(await asOlga.getTask(GetTaskRequest.fromJSON({ id: received, historyLength: 10 })));
    expect(got.metadata.muster).toMatchObject({ from: 'peer', to: 'olga-reader' });
    expect(got.history[0].parts[0].text).toBe('to the bot');
    expect(wire(await asOlga.getTask(GetTaskRequest.fromJSON({ id: sent }))).metadata.muster.from).toBe('olga-reader');
    const listed = await asOlga.listTasks(ListTasksRequest.fromJSON({}));
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([received, sent].sort());
  });

  it('reads the inbox and sent lists naming its agent, and one task over REST', async () => {
    const inbox = await rest(hub, 'GET', 'api/inbox?agent=olga-reader', { token: olga });
    expect(inbox.body.data.map((t: { id: string }) => t.id)).toEqual([received]);
    const out = await rest(hub, 'GET', 'api/sent?agent=olga-reader', { token: olga });
    expect(out.body.data.map((t: { id: string }) => t.id)).toEqual([sent]);
    expect((await rest(hub, 'GET', `api/tasks/${received}`, { token: olga })).body.id).toBe(received);
    const own = await rest(hub, 'GET', 'api/inbox', { token: olga });
    expect([own.status, own.body.error.hint]).toEqual([403, expect.stringContaining('?agent=')]);
  });

  it('never reads a task of an agent it does not own: "task not found", as for a missing one', async () => {
    const res = await rest(hub, 'GET', `api/tasks/${elsewhere}`, { token: olga });
    expect([res.status, res.body.error.code]).toEqual([404, 'TASK_NOT_FOUND']);
    const rpcRes = await rpc(`${hub.url}agents/other/`, 'GetTask', { id: elsewhere }, { token: olga });
    expect(rpcRes.body.error.code).toBe(-32001);
  });

  it('another operator sees nothing: 403 on the lists, "task not found" on the tasks', async () => {
    for (const box of ['inbox', 'sent']) {
      const res = await rest(hub, 'GET', `api/${box}?agent=olga-reader`, { token: oscar });
      expect([res.status, res.body.error.code]).toEqual([403, 'FORBIDDEN']);
    }
    const list = await rpc(`${hub.url}agents/olga-reader/`, 'ListTasks', {}, { token: oscar });
    expect([list.status, list.body.error.code]).toEqual([403, -32011]);
    for (const id of [received, sent]) {
      const rpcRes = await rpc(`${hub.url}agents/olga-reader/`, 'GetTask', { id }, { token: oscar });
      const missing = await rpc(
        `${hub.url}agents/olga-reader/`,
        'GetTask',
        { id: '0190aaaa-0000-7000-8000-000000000000' },
        { token: oscar },
      );
      expect(rpcRes.body.error).toEqual({
        ...missing.body.error,
        message: missing.body.error.message.replace('0190aaaa-0000-7000-8000-000000000000', id),
      });
      expect((await rest(hub, 'GET', `api/tasks/${id}`, { token: oscar })).status).toBe(404);
    }
    // An agent naming another's inbox is refused too.
    expect((await rest(hub, 'GET', 'api/inbox?agent=olga-reader', { token: peer.token })).status).toBe(403);
  });

  it('cannot act as its agent: sending, following up, responding, cancelling are 403 and change nothing', async () => {
    const refusals = [
      await rpc(
        `${hub.url}agents/peer/`,
        'SendMessage',
        { message: { messageId: 'op-send', role: 'ROLE_USER', parts: [{ text: 'as the bot' }] } },
        { token: olga },
      ),
      await rpc(
        `${hub.url}agents/peer/`,
        'SendMessage',
        { message: { messageId: 'op-follow', taskId: sent, role: 'ROLE_USER', parts: [{ text: 'more' }] } },
        { token: olga },
      ),
      await rpc(`${hub.url}agents/peer/`, 'CancelTask', { id: sent }, { token: olga }),
    ];
    for (const res of refusals) {
      expect([res.status, res.body.error.code]).toEqual([403, -32011]);
      expect(res.body.error.message).toMatch(/operators read .* the agent's own token acts/);
    }
    for (const [path, body] of [
      [`api/tasks/${received}/respond`, { state: 'TASK_STATE_WORKING' }],
      [`api/tasks/${sent}/cancel`, {}],
    ] as const) {
      const res = await rest(hub, 'POST', path, { token: olga, body });
      expect([res.status, res.body.error.code]).toEqual([403, 'FORBIDDEN']);
      expect(res.body.error.message).toContain("the agent's own token acts");
    }
    const space = await rest(hub, 'POST', 'api/spaces', { token: olga, body: { name: 'olga-space' } });
    expect(space.status).toBe(403);
    const states = await hub.db.rows('SELECT id, state FROM tasks WHERE id IN (?, ?)', received, sent);
    expect(states.map((r) => r['state'])).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_SUBMITTED']);
    expect(
      await hub.db.rows("SELECT id FROM tasks WHERE sender = 'olga' OR target = 'peer' AND sender != 'olga-reader'"),
    ).toEqual([]);
  });

  it("follows its agent's task on a stream, read-only", async () => {
    const asOlga = await sdkClient(`${hub.url}agents/olga-reader/`, olga);
    const seen: any[] = [];
    for await (const event of asOlga.resubscribeTask({ tenant: '', id: received })) {
      const json = StreamResponse.toJSON(event) as any;
      seen.push(json);
      if (json.task)
        setTimeout(
          () =>
            void rest(hub, 'POST', `api/tasks/${received}/respond`, {
              token: bot.token,
              body: { state: 'TASK_STATE_COMPLETED' },
            }),
          50,
        );
    }
    expect(seen.map((e) => e.task?.id ?? e.statusUpdate?.status.state)).toEqual([received, 'TASK_STATE_COMPLETED']);
  });
});
