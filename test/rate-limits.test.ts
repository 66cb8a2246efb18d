/**
 * The rate limits a client meets, through a real hub (SQLite, or PostgreSQL under MUSTER_TEST_PG):
 * each refusal is 429 with Retry-After (-32029 in the JSON-RPC envelope, RATE_LIMITED in the REST
 * body) and stores nothing; each limit is read from its setting; the per-address limits count the
 * client's address (X-Forwarded-For only from a trusted proxy) and not loopback.
 * The direct pair limit at its default (30) is in idempotency-and-quotas.test.ts, and across
 * nodes in many-nodes-tasks.test.ts (3b); the token-failure limit across nodes is in many-nodes-limits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  awayFromWindowEdge,
  EDGE_WAIT_TIMEOUT_MS,
  openStreams,
  register,
  rest,
  rpc,
  sendTask,
  startTestHub,
  type Registered,
  type TestHub,
} from './helpers/hub.js';

const send = (messageId: string) => ({ message: { messageId, role: 'ROLE_USER', parts: [{ text: messageId }] } });
const from = (address: string) => ({ 'x-forwarded-for': address });
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** The REST shape of a rate-limit refusal, with a Retry-After within the window. */
function expectRestRefusal(res: { status: number; body: any; headers: Headers }, what: RegExp, windowS: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  expect(res.body.error.message).toMatch(what);
  const retry = Number(res.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(windowS);
}

/** The JSON-RPC shape: HTTP 429, -32029 in the envelope, ErrorInfo RATE_LIMITED, Retry-After. */
function expectRpcRefusal(res: { status: number; body: any; headers: Headers }, what: RegExp, windowS: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body.jsonrpc).toBe('2.0');
  expect(res.body.error.code).toBe(-32029);
  expect(res.body.error.message).toMatch(what);
  expect(res.body.error.data[0].reason).toBe('RATE_LIMITED');
  const retry = Number(res.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(windowS);
}

describe('direct tasks: 300 a minute into one inbox (the default), and a limit set lower', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.destroy());

  it(
    'the 301st task a minute into one inbox is refused 429 / -32029 with Retry-After, and stored nothing',
    async () => {
      const target = await register(hub, 'busy-inbox', {}, ADMIN_TOKEN);
      // 11 senders, each under its own pair limit of 30 a minute: 10 send 30, the 11th sends one more.
      const senders = await Promise.all(
        Array.from({ length: 11 }, (_, i) => register(hub, `inbox-sender-${i}`, {}, ADMIN_TOKEN)),
      );
      const base = `${hub.url}agents/busy-inbox/`;
      await awayFromWindowEdge(60_000, 15_000);
      for (const [i, sender] of senders.slice(0, 10).entries()) {
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, n) =>
            rpc(base, 'SendMessage', send(`inbox-${i}-${n}`), { token: sender.token }),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
      }
      const refused = await rpc(base, 'SendMessage', send('inbox-301'), { token: senders[10]!.token });
      expectRpcRefusal(refused, /300 tasks a minute into one inbox/, 60);
      expect((await rpc(base, 'ListTasks', {}, { token: target.token })).body.result.totalSize).toBe(300);
      const sent = await rest(hub, 'GET', 'api/sent?state=all', { token: senders[10]!.token });
      expect(sent.body.data).toEqual([]);
    },
    EDGE_WAIT_TIMEOUT_MS,
  );
});

describe('each limit reads its setting', () => {
  let hub: TestHub;
  let ann: Registered;
  beforeAll(async () => {
    hub = await startTestHub({ MUSTER_LIMIT_DIRECT_PAIR: '3', MUSTER_LIMIT_DIRECT_INBOX: '5' });
    ann = await register(hub, 'ann', {}, ADMIN_TOKEN);
    await register(hub, 'ben', {}, ADMIN_TOKEN);
  });
  afterAll(() => hub.destroy());

  it('MUSTER_LIMIT_DIRECT_PAIR=3: the 4th task a minute from ann to ben is refused, naming 3', async () => {
    await awayFromWindowEdge(60_000);
    const base = `${hub.url}agents/ben/`;
    for (let i = 0; i < 3; i++)
      expect((await rpc(base, 'SendMessage', send(`pair-${i}`), { token: ann.token })).status).toBe(200);
    expectRpcRefusal(
      await rpc(base, 'SendMessage', send('pair-3'), { token: ann.token }),
      /3 tasks a minute from one agent to another/,
      60,
    );
    expect((await rpc(base, 'ListTasks', {}, { token: ann.token })).body.result.totalSize).toBe(3);
  });
});

describe('registrations per source address (loopback not counted)', () => {
  let hub: TestHub;
  beforeAll(async () => {
    // The test runs on loopback: the hub trusts it as a proxy, so X-Forwarded-For names the client.
    hub = await startTestHub({ MUSTER_TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => hub.destroy());

  it(
    '60 an hour from one address (the default); the 61st is refused 429 and stores nothing; another address, the admin and loopback are not held back',
    async () => {
      await awayFromWindowEdge(3_600_000, 30_000);
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          rest(hub, 'POST', 'api/agents', { body: { handle: `far-${i}` }, headers: from('203.0.113.7') }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(60).fill(201));
      const refused = await rest(hub, 'POST', 'api/agents', {
        body: { handle: 'far-60' },
        headers: from('203.0.113.7'),
      });
      expectRestRefusal(refused, /60 agents registered an hour from one address/, 3600);
      expect((await rest(hub, 'GET', 'api/agents/far-60')).status).toBe(404);
      // The client is the last address the trusted proxy saw, whatever the client wrote before it.
      expect(
        (
          await rest(hub, 'POST', 'api/agents', {
            body: { handle: 'far-60' },
            headers: from('198.51.100.1, 203.0.113.7'),
          })
        ).status,
      ).toBe(429);
      expect(
        (await rest(hub, 'POST', 'api/agents', { body: { handle: 'near-1' }, headers: from('198.51.100.1') })).status,
      ).toBe(201);
      expect(
        (
          await rest(hub, 'POST', 'api/agents', {
            body: { handle: 'far-60' },
            headers: { ...from('203.0.113.7'), ...admin },
          })
        ).status,
      ).toBe(201);
      for (const address of ['127.0.0.1', '::1', '127.8.9.10']) {
        expect(
          (
            await rest(hub, 'POST', 'api/agents', {
              body: { handle: `home-${address.replace(/[.:]/g, '-')}` },
              headers: from(address),
            })
          ).status,
        ).toBe(201);
      }
    },
    EDGE_WAIT_TIMEOUT_MS,
  );

  it('loopback itself is never counted: more than the limit register from 127.0.0.1', async () => {
    const local = await startTestHub({ MUSTER_LIMIT_REGISTER_ADDRESS: '2' });
    try {
      for (let i = 0; i < 4; i++)
        expect((await rest(local, 'POST', 'api/agents', { body: { handle: `local-${i}` } })).status).toBe(201);
    } finally {
      await local.destroy();
    }
  });

  it('without trustProxy, X-Forwarded-For is ignored: the peer (here loopback) is the client', async () => {
    const direct = await startTestHub({ MUSTER_LIMIT_REGISTER_ADDRESS: '2' });
    try {
      for (let i = 0; i < 4; i++) {
        expect(
          (await rest(direct, 'POST', 'api/agents', { body: { handle: `spoof-${i}` }, headers: from('203.0.113.7') }))
            .status,
        ).toBe(201);
      }
    } finally {
      await direct.destroy();
    }
  });
});

describe('refused bearer tokens per source address', () => {
  let hub: TestHub;
  let cleo: Registered;
  beforeAll(async () => {
    hub = await startTestHub({
      MUSTER_TRUST_PROXY: '127.0.0.1',
      MUSTER_LIMIT_TOKEN_FAILURES: '3',
      MUSTER_LIMIT_TOKEN_FAILURES_OPERATOR: '2',
    });
    cleo = await register(hub, 'cleo', {}, ADMIN_TOKEN);
    await register(hub, 'dan', {}, ADMIN_TOKEN);
  });
  afterAll(() => hub.destroy());

  it(
    'after 3 refused tokens from one address, every request from it carrying a token is refused 429 for the window, a good one too; other addresses and anonymous reads are unaffected',
    async () => {
      await awayFromWindowEdge(3_600_000, 30_000);
      const revoked = await register(hub, 'revoked-one', {}, ADMIN_TOKEN);
      const tokens = await rest(hub, 'GET', 'api/agents/revoked-one/tokens', { headers: admin });
      await rest(hub, 'DELETE', `api/agents/revoked-one/tokens/${tokens.body.tokens[0].id}`, { headers: admin });
      const X = from('203.0.113.50');
      // Three refusals, each counted whichever door refused it: unknown (REST), malformed, revoked (JSON-RPC).
      expect((await rest(hub, 'GET', 'api/inbox', { token: 'mst_never-issued', headers: X })).status).toBe(401);
      expect(
        (await rest(hub, 'GET', 'api/inbox', { headers: { ...X, authorization: 'Basic Y2xlbzpzZWNyZXQ=' } })).status,
      ).toBe(401);
      expect(
        (await rpc(`${hub.url}agents/dan/`, 'SendMessage', send('with-revoked'), { token: revoked.token, headers: X }))
          .status,
      ).toBe(401);

      // Now cleo's good token, from that address: refused before it is looked at, on both doors.
      expectRestRefusal(
        await rest(hub, 'GET', 'api/inbox', { token: cleo.token, headers: X }),
        /3 refused bearer tokens an hour from one address/,
        3600,
      );
      const viaRpc = await rpc(`${hub.url}agents/dan/`, 'SendMessage', send('blocked'), {
        token: cleo.token,
        headers: X,
      });
      expectRpcRefusal(viaRpc, /3 refused bearer tokens an hour/, 3600);
      expect((await rest(hub, 'GET', 'api/sent?state=all', { token: cleo.token })).body.data).toEqual([]); // nothing was sent
      expect((await rest(hub, 'GET', '.well-known/agent-card.json', { token: ADMIN_TOKEN, headers: X })).status).toBe(
        429,
      );

      // The same token from elsewhere, and a request from the address without a token, go through.
      expect((await rest(hub, 'GET', 'api/inbox', { token: cleo.token, headers: from('198.51.100.50') })).status).toBe(
        200,
      );
      expect((await rest(hub, 'GET', 'api/inbox', { token: cleo.token })).status).toBe(200);
      expect((await rest(hub, 'GET', 'api/agents/cleo', { headers: X })).status).toBe(200);
    },
    EDGE_WAIT_TIMEOUT_MS,
  );

  it(
    'operator tokens (mso_) have a rule of their own: 2 refused ones hold back further operator tokens from that address, not agent tokens',
    async () => {
      await awayFromWindowEdge(3_600_000, 30_000);
      const Y = from('203.0.113.60');
      for (let i = 0; i < 2; i++)
        expect((await rest(hub, 'GET', 'api/inbox', { token: `mso_guess-${i}`, headers: Y })).status).toBe(401);
      expectRestRefusal(
        await rest(hub, 'GET', 'api/inbox', { token: 'mso_guess-2', headers: Y }),
        /2 refused operator tokens \(mso_\) an hour from one address/,
        3600,
      );
      // Two failures also count under the general rule (limit 3), which still has one left.
      expect((await rest(hub, 'GET', 'api/inbox', { token: cleo.token, headers: Y })).status).toBe(200);
    },
    EDGE_WAIT_TIMEOUT_MS,
  );

  it(
    'a task wait whose token is rotated while it waits is refused 401 but not counted: the token was live when sent',
    async () => {
      await awayFromWindowEdge(3_600_000, 30_000);
      const Z = from('203.0.113.70');
      const wes = await register(hub, 'wes', {}, ADMIN_TOKEN);
      const wait = `api/tasks/${await sendTask(hub, wes, 'dan', 'waited on')}/wait?timeoutSeconds=30`;
      const before = await openStreams(hub);
      const waits = [1, 2, 3].map(() => rest(hub, 'GET', wait, { token: wes.token, headers: Z }));
      await expect.poll(() => openStreams(hub), { timeout: 5_000 }).toBe(before + 3); // the three waits are held
      const rotated = await rest(hub, 'POST', 'api/agents/wes/token', { token: wes.token });
      for (const answer of await Promise.all(waits)) expect(answer.status).toBe(401);
      // Three counted refusals would hold back every token from Z now (the limit is 3).
      expect((await rest(hub, 'GET', 'api/inbox', { token: rotated.body.token, headers: Z })).status).toBe(200);
    },
    EDGE_WAIT_TIMEOUT_MS,
  );

  it('refused tokens from loopback are not counted', async () => {
    for (let i = 0; i < 5; i++)
      expect((await rest(hub, 'GET', 'api/inbox', { token: `mst_local-${i}` })).status).toBe(401);
    expect((await rest(hub, 'GET', 'api/inbox', { token: cleo.token })).status).toBe(200);
  });
});
