/**
 * When a node hears that an agent's tokens changed but cannot ask its database whether a stream's
 * token is still live, it ends the stream and says why: the task wait answers 503 UNAVAILABLE (not
 * 401, which would say the token is gone), a JSON-RPC stream ends, the node logs one warning, and
 * nothing stored is lost. PostgreSQL only: node A connects as a role of its own, whose right to read
 * the tokens is taken away while alice holds her streams on it; node B, which rotates her token, is
 * not touched.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, openStreams, register, rest, sendTask, type Registered } from './helpers/hub.js';
import { logLines, openSse, startNode, stopNodes, within, type NodeProcess } from './helpers/nodes.js';
import { freshPostgresDatabase, onServer, testPostgres } from './helpers/postgres.js';

describe.runIf(testPostgres)('a stream whose token the node cannot check (PostgreSQL)', () => {
  const role = `muster_node_${randomBytes(4).toString('hex')}`;
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let admin: pg.Client;
  let A: NodeProcess;
  let B: NodeProcess;
  let alice: Registered;
  let bob: Registered;

  beforeAll(async () => {
    database = await freshPostgresDatabase('stream_tokens_unavailable');
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const env = { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN };
    B = await startNode('B', { db: database.url, env }); // migrates the database, as its owner
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT CREATE ON SCHEMA public TO ${role}`); // a node asks for its tables IF NOT EXISTS
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
    await admin.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    const asRole = new URL(database.url);
    asRole.username = role;
    A = await startNode('A', { db: asRole.href, env });
    alice = await register(B, 'alice', {}, ADMIN_TOKEN);
    bob = await register(B, 'bob', {}, ADMIN_TOKEN);
  }, 45_000);

  afterAll(async () => {
    await stopNodes([A, B].filter(Boolean));
    await admin?.end();
    await database?.drop();
    await onServer(`DROP ROLE IF EXISTS ${role}`);
  }, 20_000);

  it('ends the wait with 503 UNAVAILABLE and the JSON-RPC stream, logs why once, and loses nothing', async () => {
    const id = await sendTask(A, alice, 'bob', 'followed on A');
    const stream = await openSse(`${A.url}agents/bob/`, 'SubscribeToTask', { id }, { token: alice.token });
    await stream.waitFor(1);
    const wait = rest(A, 'GET', `api/tasks/${id}/wait?timeoutSeconds=30`, { token: alice.token });
    await expect.poll(() => openStreams(A), { timeout: 5_000 }).toBe(2);

    await admin.query(`REVOKE SELECT ON tokens FROM ${role}`);
    const rotated = await rest(B, 'POST', 'api/agents/alice/token', { token: alice.token });
    expect(rotated.status).toBe(200);

    const answer = await within(5_000, 'the wait answers', wait);
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('UNAVAILABLE');
    await within(5_000, 'the JSON-RPC stream ends', stream.ended);
    expect(stream.error).toBeUndefined();
    const warnings = logLines(A.output()).filter((line) =>
      String(line['msg']).startsWith("checking the token of alice's open streams failed"),
    );
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain(alice.token);

    // The database answers A again: alice's new token works there, her old one does not, and the task is whole.
    await admin.query(`GRANT SELECT ON tokens TO ${role}`);
    const read = await rest(A, 'GET', `api/tasks/${id}`, { token: rotated.body.token });
    expect(read.status).toBe(200);
    expect(read.body.status.state).toBe('TASK_STATE_SUBMITTED');
    expect((await rest(A, 'GET', `api/tasks/${id}`, { token: alice.token })).status).toBe(401);
    expect((await rest(A, 'GET', `api/tasks/${id}`, { token: bob.token })).status).toBe(200);
  });
});
