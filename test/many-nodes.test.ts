/**
 * Three real `muster serve` processes (A, B, C) on one PostgreSQL database, as they would run
 * behind a load balancer: they come up together on the empty database (one run of the migrations,
 * one admin token, one key set), an agent registered through one is known on the others, and a
 * token rotated or revoked through one is refused by the others at once. Tasks, reviews and push,
 * and failures on such nodes are in the other test/many-nodes-*.test.ts parts.
 * Runs only when MUSTER_TEST_PG names a server (see helpers/postgres.ts).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import {
  ADMIN_TOKEN,
  bobBase,
  expectOnlyExpectedLogs,
  NODE_ENV,
  texts,
  threeNodes,
  WORKING,
} from './helpers/many-nodes.js';
import { cleanEnv, openSse, sleep, startNode, type NodeProcess } from './helpers/nodes.js';
import { MUSTER_COMMAND } from './helpers/muster-command.js';
import { testPostgres } from './helpers/postgres.js';
import { sdkClient } from './helpers/sdk.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe.skipIf(!testPostgres)('start-up, agents and tokens on three nodes of one PostgreSQL database', () => {
  const many = threeNodes('many_nodes');
  const { nodes, sql, respond, newTask } = many;
  let A: NodeProcess, B: NodeProcess, C: NodeProcess;
  let bob: Registered;

  beforeAll(() => {
    ({ A, B, C, bob } = many.parties());
  });

  it('all three come up together on the empty database: one run of the migrations, store postgres, one admin token, one key set', async () => {
    const fingerprint = createHash('sha256').update(ADMIN_TOKEN).digest('hex').slice(0, 16);
    const jwks: string[] = [];
    for (const node of nodes) {
      const health = await rest(node, 'GET', 'health');
      expect(health.status, node.name).toBe(200);
      expect(health.body, node.name).toMatchObject({
        status: 'ok',
        store: 'postgres',
        adminTokenFingerprint: fingerprint,
      });
      const me = await rest(node, 'GET', 'api/me', { token: ADMIN_TOKEN });
      expect(me.body, node.name).toEqual({ kind: 'admin' });
      jwks.push(JSON.stringify((await rest(node, 'GET', '.well-known/jwks.json')).body));
    }
    const versions = (await sql('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions).toEqual(versions.map((_, i) => i + 1)); // each applied once, in order
    // A push may be signed by any node and checked against the JWKS of any other.
    expect(JSON.parse(jwks[0]!).keys.length).toBeGreaterThan(0);
    expect(jwks[1]).toBe(jwks[0]);
    expect(jwks[2]).toBe(jwks[0]);
    expect(await sql('SELECT kid FROM signing_keys')).toHaveLength(1);
  });

  it('a process that comes later: migrate finds the database up to date, and a node with another admin token refuses to start', async () => {
    const migrate = spawnSync(process.execPath, [...MUSTER_COMMAND, 'migrate', '--db', many.url()], {
      cwd: root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(migrate.stdout.trim(), migrate.stderr).toBe(`${many.url()} is up to date`);
    expect(migrate.status).toBe(0);
    const other = startNode('D', { db: many.url(), env: { ...NODE_ENV, MUSTER_ADMIN_TOKEN: 'another-admin-token' } });
    const refused = await other.then(
      async (node) => {
        await node.stop('SIGKILL');
        return `started: ${node.output()}`;
      },
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/exited \(\d+\) before it started/);
    expect(refused).toMatch(/muster: MUSTER_ADMIN_TOKEN is not this database's admin token/);
  });

  it('1. an agent registered through A is known on B and C: its card, its profile, and its token', async () => {
    const agent = await register(A, 'node-one', { name: 'Node One' }, ADMIN_TOKEN);
    for (const node of [B, C]) {
      const card = await rest(node, 'GET', 'agents/node-one/.well-known/agent-card.json');
      expect(card.status, node.name).toBe(200);
      expect(card.body.name).toBe('Node One');
      expect(card.body.supportedInterfaces[0].url).toBe(`${node.url}agents/node-one/`);
      const me = await rest(node, 'GET', 'api/me', { token: agent.token });
      expect(me.status, node.name).toBe(200);
      expect(me.body).toMatchObject({ kind: 'agent', handle: 'node-one', name: 'Node One' });
      expect((await rest(node, 'GET', 'api/agents/node-one')).body).toMatchObject({
        handle: 'node-one',
        name: 'Node One',
      });
      // The SDK discovers the agent through this node.
      const client = await sdkClient(`${node.url}agents/node-one/`, agent.token);
      expect((await client.getAgentCard()).name).toBe('Node One');
    }
    // The checks can fail: an agent nobody registered is unknown everywhere.
    expect((await rest(B, 'GET', 'agents/node-none/.well-known/agent-card.json')).status).toBe(404);
  });

  it('1b. one handle registered through the three nodes at once: one 201, two 409 HANDLE_TAKEN', async () => {
    for (const round of [1, 2, 3]) {
      const handle = `same-handle-${round}`;
      const answers = await Promise.all(
        nodes.map((node) => rest(node, 'POST', 'api/agents', { token: ADMIN_TOKEN, body: { handle } })),
      );
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([201, 409, 409]);
      for (const a of answers.filter((a) => a.status === 409)) expect(a.body.error.code).toBe('HANDLE_TAKEN');
      const token = answers.find((a) => a.status === 201)!.body.token;
      expect((await rest(nodes[round % 3]!, 'GET', 'api/me', { token })).body.handle).toBe(handle);
    }
  });

  it('7. a token rotated through A is refused on B and C at the very next request, and a stream it opened on C is closed', async () => {
    const dan = await register(A, 'rotating-dan', {}, ADMIN_TOKEN);
    const id = await newTask(B, 'a task dan follows', dan);
    const stream = await openSse(bobBase(C), 'SubscribeToTask', { id }, { token: dan.token });
    await stream.waitFor(1);
    for (const node of [B, C])
      expect((await rest(node, 'GET', 'api/me', { token: dan.token })).status, node.name).toBe(200); // any cache is warm

    const rotated = await rest(A, 'POST', 'api/agents/rotating-dan/token', { token: dan.token });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.token as string;
    const next = await Promise.all([B, C].map((node) => rest(node, 'GET', 'api/me', { token: dan.token })));
    expect(next.map((r) => r.status)).toEqual([401, 401]);
    expect(next[0]!.headers.get('www-authenticate')).toContain('Bearer');
    expect((await rpc(bobBase(C), 'GetTask', { id }, { token: dan.token })).status).toBe(401);
    for (const node of [B, C])
      expect((await rest(node, 'GET', 'api/me', { token: fresh })).body, node.name).toMatchObject({
        kind: 'agent',
        handle: 'rotating-dan',
      });

    await stream.waitEnd(5_000); // closed without any further change to the task
    expect((await respond(B, id, { state: WORKING, message: { parts: [{ text: 'after rotation' }] } })).status).toBe(
      200,
    );
    await sleep(200);
    expect(JSON.stringify(stream.events)).not.toContain('after rotation');

    // Revoking through B reaches A and C the same way.
    const listed = await rest(C, 'GET', 'api/agents/rotating-dan/tokens', { token: fresh });
    const live = listed.body.tokens.filter((t: any) => !t.revokedAt);
    expect(live).toHaveLength(1);
    expect((await rest(B, 'DELETE', `api/agents/rotating-dan/tokens/${live[0].id}`, { token: fresh })).status).toBe(
      204,
    );
    const afterRevoke = await Promise.all([A, C].map((node) => rest(node, 'GET', 'api/me', { token: fresh })));
    expect(afterRevoke.map((r) => r.status)).toEqual([401, 401]);
  });

  it('7c. SendMessage and GetTask, which check the token in their own statement, refuse a token revoked through another node at once, and write nothing', async () => {
    const eve = await register(A, 'revoked-eve', {}, ADMIN_TOKEN);
    const id = await newTask(B, 'before the revocation', eve);
    const message = (text: string, extra: object = {}) => ({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
    });
    const legacy = { headers: { 'a2a-version': '0.3' } };
    // Every node has seen the token, so each knows whose it is without asking the database.
    for (const node of nodes) {
      expect((await rpc(bobBase(node), 'GetTask', { id }, { token: eve.token })).status, node.name).toBe(200);
      expect(
        (
          await rpc(
            bobBase(node),
            'message/send',
            {
              message: {
                kind: 'message',
                messageId: crypto.randomUUID(),
                role: 'user',
                parts: [{ kind: 'text', text: 'warm' }],
              },
            },
            { token: eve.token, ...legacy },
          )
        ).status,
        node.name,
      ).toBe(200);
    }
    const sentBefore = (await sql('SELECT count(*)::int AS n FROM tasks WHERE sender = $1', ['revoked-eve']))[0].n;
    const live = (await rest(A, 'GET', 'api/agents/revoked-eve/tokens', { token: eve.token })).body.tokens.filter(
      (t: any) => !t.revokedAt,
    );
    expect((await rest(A, 'DELETE', `api/agents/revoked-eve/tokens/${live[0].id}`, { token: eve.token })).status).toBe(
      204,
    );

    for (const node of [B, C]) {
      const answers = await Promise.all([
        rpc(bobBase(node), 'SendMessage', message('a new task after the revocation'), { token: eve.token }),
        rpc(bobBase(node), 'SendMessage', message('a follow-up after the revocation', { taskId: id }), {
          token: eve.token,
        }),
        rpc(bobBase(node), 'GetTask', { id }, { token: eve.token }),
        rpc(bobBase(node), 'GetTask', { id: 'no-such-task' }, { token: eve.token }),
        rpc(
          bobBase(node),
          'SendMessage',
          { message: { messageId: 'x', role: 'ROLE_USER', parts: [] } },
          { token: eve.token },
        ),
        rpc(
          bobBase(node),
          'message/send',
          {
            message: {
              kind: 'message',
              messageId: crypto.randomUUID(),
              role: 'user',
              parts: [{ kind: 'text', text: 'legacy' }],
            },
          },
          { token: eve.token, ...legacy },
        ),
        rpc(bobBase(node), 'tasks/get', { id }, { token: eve.token, ...legacy }),
      ]);
      expect(
        answers.map((a) => a.status),
        `${node.name}: ${JSON.stringify(answers.map((a) => a.body.error?.message))}`,
      ).toEqual([401, 401, 401, 401, 401, 401, 401]);
      for (const a of answers) expect(a.body.error.data[0].reason).toBe('UNAUTHENTICATED');
    }
    expect((await sql('SELECT count(*)::int AS n FROM tasks WHERE sender = $1', ['revoked-eve']))[0].n).toBe(
      sentBefore,
    );
    const read = await rpc(bobBase(A), 'GetTask', { id }, { token: bob.token });
    expect(texts(read.body.result.history)).toEqual(['before the revocation']);
  });

  it('7b. three rotations of one agent at once through the three nodes leave one live token, as one rotation does', async () => {
    await register(C, 'double-rotate', {}, ADMIN_TOKEN);
    for (let round = 1; round <= 10; round++) {
      const rotations = await Promise.all(
        nodes.map((node) => rest(node, 'POST', 'api/agents/double-rotate/token', { token: ADMIN_TOKEN })),
      );
      expect(rotations.map((r) => r.status)).toEqual([200, 200, 200]);
      const tokens = (await rest(C, 'GET', 'api/agents/double-rotate/tokens', { token: ADMIN_TOKEN })).body
        .tokens as any[];
      const works = await Promise.all(
        rotations.map(async (r) => (await rest(A, 'GET', 'api/me', { token: r.body.token })).status),
      );
      expect({ round, live: tokens.filter((t) => !t.revokedAt).length, works: works.sort() }).toEqual({
        round,
        live: 1,
        works: [200, 401, 401],
      });
    }
  });

  it('no node logged an error or a warning (no failed request, delivery or scheduled work)', () => {
    expectOnlyExpectedLogs(nodes);
  });
});
