/**
 * Reserved handles (issue 10) cannot be registered, by anyone; an agent registered under one
 * before it was reserved keeps working.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newToken, newTokenId } from '../src/identity/tokens.js';
import { openStore } from '../src/store/open.js';
import { kindMigrationInputs } from '../src/hub/kinds.js';
import { KIND_MODULES } from '../src/kinds/server.js';
import { AT_ONCE, message, wordsHub } from './helpers/errors-in-words.js';
import { ADMIN_TOKEN, register, rest, rpc, type TestHub } from './helpers/hub.js';
import { testDatabase } from './helpers/database.js';
import { startNode } from './helpers/nodes.js';

const served = wordsHub();
let hub: TestHub;
beforeAll(() => {
  ({ hub } = served.parties());
});

describe('reserved handles', () => {
  it.each([
    'admin',
    'muster',
    'root',
    'system',
    'operator',
    'operators',
    'api',
    'agents',
    'spaces',
    'memory',
    'feed',
    'hub',
    'health',
    'metrics',
    'mcp',
    'well-known',
    'null',
    'undefined',
    'me',
  ])('refuses %s', async (handle) => {
    const res = await rest(hub, 'POST', 'api/agents', { body: { handle } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('HANDLE_RESERVED');
    expect(res.body.error.message).toContain(`'${handle}' is reserved`);
    expect(res.body.error.hint).toMatch(/another handle/i);
    expect(res.body.error.fields[0].field).toBe('handle');
  });

  it('refuses them to the admin too, and still registers a handle that only contains one', async () => {
    const res = await rest(hub, 'POST', 'api/agents', { token: ADMIN_TOKEN, body: { handle: 'admin' } });
    expect(res.body.error.code).toBe('HANDLE_RESERVED');
    await register(hub, 'api-helper');
  });

  it('leaves an agent registered before its handle was reserved working', async () => {
    // An older hub's database, holding an agent whose handle is reserved now, served by `muster serve`.
    const db = await testDatabase('reserved-handle');
    const store = await openStore(db.config, kindMigrationInputs(KIND_MODULES), () => {});
    const token = newToken();
    await store.insertAgent({ handle: 'metrics', createdAt: Date.now() }, { id: newTokenId(), hash: hashToken(token) });
    await store.close();
    const node = await startNode('reserved', { db: db.url });
    try {
      const profile = await rest(node, 'GET', 'api/agents/metrics');
      expect(profile.body.handle).toBe('metrics');
      const me = await rest(node, 'GET', 'api/me', { token });
      expect(me.body).toMatchObject({ kind: 'agent', handle: 'metrics' });
      const sender = await register(node, 'sender');
      const sent = await rpc(
        `${node.url}agents/metrics/`,
        'SendMessage',
        { message: message(), configuration: AT_ONCE },
        { token: sender.token },
      );
      expect(sent.body.result.task.id).toBeTruthy();
    } finally {
      await node.stop();
      await db.drop();
    }
  });
});
