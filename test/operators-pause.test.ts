/**
 * Pausing an agent (POST /api/agents/{handle}/pause and /resume, its operator or the admin): while
 * paused, a new direct task to it is refused with AGENT_PAUSED, saying when and by whom, and
 * nothing is stored (no task, no receipt, no quota charge); tasks it already has go on.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';

let hub: TestHub;
let operator: string;
let bot: Registered; // the operator's agent
let sender: Registered;

const send = (messageId: string = randomUUID(), extra: Record<string, unknown> = {}) =>
  rpc(
    `${hub.url}agents/paused-bot/`,
    'SendMessage',
    { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'are you there?' }], ...extra } },
    { token: sender.token },
  );

/** What a refused send must leave as it was. */
const stored = async () => ({
  tasks: await hub.db.rows("SELECT id FROM tasks WHERE target = 'paused-bot' ORDER BY id"),
  receipts: await hub.db.rows("SELECT key FROM receipts WHERE scope = 'message:pause-sender' ORDER BY key"),
  quotas: await hub.db.rows("SELECT key, used FROM quota_counters WHERE key LIKE '%paused-bot%' ORDER BY key"),
});

beforeAll(async () => {
  hub = await startTestHub();
  operator = (await rest(hub, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'pause-op' } })).body
    .token;
  bot = {
    handle: 'paused-bot',
    token: (await rest(hub, 'POST', 'api/agents', { token: operator, body: { handle: 'paused-bot' } })).body.token,
  };
  sender = await register(hub, 'pause-sender');
});
afterAll(() => hub.destroy());

describe('pausing an agent', () => {
  let earlier: string; // a task the agent had before the pause

  it('only its operator or the admin pauses it: no token 401; the agent itself, another agent or operator 403', async () => {
    earlier = wire(
      await (
        await sdkClient(`${hub.url}agents/paused-bot/`, sender.token)
      ).sendMessage(sendRequest('before the pause')),
    ).id;
    const other = (await rest(hub, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'other-op' } })).body
      .token;
    expect((await rest(hub, 'POST', 'api/agents/paused-bot/pause')).status).toBe(401);
    for (const token of [bot.token, sender.token, other])
      expect((await rest(hub, 'POST', 'api/agents/paused-bot/pause', { token })).status).toBe(403);
    expect((await rest(hub, 'GET', 'api/agents/paused-bot')).body.paused).toBeUndefined();
    expect((await rest(hub, 'POST', 'api/agents/nobody-at-all/pause', { token: ADMIN_TOKEN })).status).toBe(404);
  });

  it('refuses a new task with AGENT_PAUSED, saying when and by the operator, and stores nothing', async () => {
    const paused = await rest(hub, 'POST', 'api/agents/paused-bot/pause', { token: operator });
    expect(paused.status).toBe(200);
    expect(paused.body.paused).toEqual({ at: expect.any(String), by: 'operator' });
    expect((await rest(hub, 'GET', 'api/agents/paused-bot')).body.paused).toEqual(paused.body.paused);
    const before = await stored();
    expect(before.quotas.length).toBeGreaterThan(0); // the task before the pause was charged: a charge now would show
    const res = await send('while-paused');
    expect(res.body.error.code).toBe(-32013);
    expect(res.body.error.message).toBe(
      `Agent 'paused-bot' was paused by its operator 'pause-op' at ${paused.body.paused.at}: it takes no new tasks until it is resumed`,
    );
    expect(res.body.error.data[0]).toMatchObject({
      reason: 'AGENT_PAUSED',
      domain: 'muster.hub',
      metadata: { pausedAt: paused.body.paused.at, pausedBy: 'operator' },
    });
    await expect(
      (await sdkClient(`${hub.url}agents/paused-bot/`, sender.token)).sendMessage(sendRequest('through the SDK')),
    ).rejects.toThrow(/paused by its operator/);
    const streamed = await rpc(
      `${hub.url}agents/paused-bot/`,
      'SendStreamingMessage',
      { message: { messageId: 'streamed-while-paused', role: 'ROLE_USER', parts: [{ text: 'stream?' }] } },
      { token: sender.token },
    );
    expect(streamed.body.error.data[0].reason).toBe('AGENT_PAUSED');
    expect(await stored()).toEqual(before);
  });

  it('tasks already there go on: the agent answers, the sender follows up', async () => {
    const answered = await rest(hub, 'POST', `api/tasks/${earlier}/respond`, {
      token: bot.token,
      body: { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Which one?' }] } },
    });
    expect(answered.status).toBe(200);
    const followUp = await send(undefined, { taskId: earlier });
    expect(followUp.body.result.task.status.state).toBe('TASK_STATE_WORKING');
  });

  it('a pause by the admin says so; resume lifts it, and the refused message id then opens a task', async () => {
    expect((await rest(hub, 'POST', 'api/agents/paused-bot/pause', { token: ADMIN_TOKEN })).body.paused.by).toBe(
      'admin',
    );
    expect((await send()).body.error.message).toMatch(/^Agent 'paused-bot' was paused by the admin at /);
    expect((await rest(hub, 'POST', 'api/agents/paused-bot/resume', { token: bot.token })).status).toBe(403);
    const resumed = await rest(hub, 'POST', 'api/agents/paused-bot/resume', { token: operator });
    expect(resumed.status).toBe(200);
    expect(resumed.body.paused).toBeUndefined();
    const res = await send('while-paused'); // no receipt was kept for it: it runs as a new request
    expect(res.body.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
  });
});
