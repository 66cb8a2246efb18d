/**
 * PostgreSQL going away under a running hub: callers get a structured 503 that says to retry (no
 * HTML, no stack trace), and once the database is back everything stored is there and the hub
 * answers again without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from './helpers/database.js';
import { databaseOutage } from './helpers/postgres.js';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

describe.skipIf(testDialect !== 'postgres')('the database unavailable', () => {
  let hub: TestHub;
  let alice: Registered, bob: Registered;
  let outage: Awaited<ReturnType<typeof databaseOutage>>;

  beforeAll(async () => {
    hub = await startTestHub();
    [alice, bob] = [await register(hub, 'out-alice'), await register(hub, 'out-bob')];
    outage = await databaseOutage(hub.db.url);
  });
  afterAll(async () => {
    await outage.close();
    await hub.destroy();
  });

  it('answers 503 UNAVAILABLE with Retry-After while PostgreSQL refuses, and carries on when it is back', async () => {
    const sent = await rpc(
      `${hub.url}agents/out-bob/`,
      'SendMessage',
      { message: { messageId: 'm-out-1', role: 'ROLE_USER', parts: [{ text: 'before' }] } },
      { token: alice.token },
    );
    const id = sent.body.result.task.id;

    await outage.cut();

    const read = await rpc(`${hub.url}agents/out-bob/`, 'GetTask', { id }, { token: alice.token });
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('5');
    expect(read.body.error).toMatchObject({
      code: -32030,
      data: [{ reason: 'UNAVAILABLE', metadata: { hint: 'Retry in a few seconds' } }],
    });
    const inbox = await rest(hub, 'GET', 'api/inbox', { token: bob.token });
    expect(inbox.status).toBe(503);
    expect(inbox.body.error).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(JSON.stringify(inbox.body)).not.toMatch(/at .*\.js|pg_|ECONN/); // no stack, no driver detail

    await outage.restore();
    const back = await rpc(`${hub.url}agents/out-bob/`, 'GetTask', { id }, { token: alice.token });
    expect(back.status).toBe(200);
    expect(back.body.result.history[0].parts[0].text).toBe('before');
    const retried = await rpc(
      `${hub.url}agents/out-bob/`,
      'SendMessage',
      { message: { messageId: 'm-out-1', role: 'ROLE_USER', parts: [{ text: 'before' }] } },
      { token: alice.token },
    );
    expect(retried.body.result.task.id).toBe(id); // the retry finds the first answer
  });
});
