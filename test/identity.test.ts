import { createHash } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from './helpers/database.js';
import { ADMIN_TOKEN, register, rest, rpc, startTestHub, type TestHub } from './helpers/hub.js';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.destroy());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('registration and tokens', () => {
  it('registers an agent: 201 with the token once, stored only as a hash', async () => {
    const res = await rest(hub, 'POST', 'api/agents', {
      body: { handle: 'reg-one', name: 'Reg One', endpoint: 'https://agent.example.com/a2a/' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ handle: 'reg-one', name: 'Reg One', a2a: `${hub.url}agents/reg-one/` });
    expect(res.body.token).toMatch(/^mst_[A-Za-z0-9_-]{43}$/);
    const profile = await rest(hub, 'GET', 'api/agents/reg-one');
    expect(JSON.stringify(profile.body)).not.toContain(res.body.token);
    const dump = JSON.stringify(await hub.db.rows('SELECT * FROM tokens'));
    expect(dump).not.toContain(res.body.token);
    expect(dump).toContain(createHash('sha256').update(res.body.token).digest('hex'));
  });

  it.each([
    [{ handle: 'A' }, 'handle'],
    [{ handle: 'Upper-Case' }, 'handle'],
    [{ handle: 'x'.repeat(41) }, 'handle'],
    [{ handle: 'ok-handle', endpoint: 'ftp://x' }, 'endpoint'],
    [{ handle: 'ok-handle2', nickname: 'n' }, 'nickname'],
    [{}, 'handle'],
  ])('refuses %j with 400 naming the field', async (body, field) => {
    const res = await rest(hub, 'POST', 'api/agents', { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMS');
    expect(res.body.error.fields[0].field).toBe(field);
  });

  it('refuses a taken handle with 409', async () => {
    await register(hub, 'taken');
    const res = await rest(hub, 'POST', 'api/agents', { body: { handle: 'taken' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('HANDLE_TAKEN');
  });

  it('rotates: the new token works, the old one is 401 at once', async () => {
    const agent = await register(hub, 'rotator');
    const res = await rest(hub, 'POST', 'api/agents/rotator/token', { token: agent.token });
    expect(res.status).toBe(200);
    expect(res.body.token).not.toBe(agent.token);
    expect((await rest(hub, 'GET', 'api/me', { token: agent.token })).status).toBe(401);
    expect((await rest(hub, 'GET', 'api/me', { token: res.body.token })).body.handle).toBe('rotator');
    const other = await register(hub, 'not-rotator');
    expect((await rest(hub, 'POST', 'api/agents/rotator/token', { token: other.token })).status).toBe(403);
  });

  it('the admin revokes a token: 401 at once, even on reads', async () => {
    const agent = await register(hub, 'revokee');
    const tokens = await rest(hub, 'GET', 'api/agents/revokee/tokens', { headers: admin });
    expect(tokens.body.tokens).toHaveLength(1);
    expect(JSON.stringify(tokens.body)).not.toContain(agent.token);
    const res = await rest(hub, 'DELETE', `api/agents/revokee/tokens/${tokens.body.tokens[0].id}`, { headers: admin });
    expect(res.status).toBe(204);
    const read = await rest(hub, 'GET', 'api/agents/revokee', { token: agent.token });
    expect(read.status).toBe(401);
    expect(read.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const a2a = await rpc(hub.url, 'ListTasks', {}, { token: agent.token });
    expect(a2a.status).toBe(401);
    expect(a2a.body.error.code).toBe(-32010);
  });

  it('on one kept-alive connection, each request is known by its own token, and a revoked one is 401 at once', async () => {
    const keeper = await register(hub, 'keeper');
    const other = await register(hub, 'keeper-other');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    /** A request on the one connection: its status, body and whether the connection was reused. */
    const send = (method: string, path: string, token: string, body?: unknown) =>
      new Promise<{ status: number; body: any; reused: boolean }>((resolve, reject) => {
        const text = body === undefined ? undefined : JSON.stringify(body);
        const req = httpRequest(
          {
            agent,
            host: '127.0.0.1',
            port: hub.port,
            method,
            path,
            headers: {
              authorization: `Bearer ${token}`,
              ...(text && { 'content-type': 'application/json', 'a2a-version': '1.0' }),
            },
          },
          (res) => {
            let got = '';
            res.on('data', (c: Buffer) => (got += c.toString('utf8')));
            res.on('end', () =>
              resolve({ status: res.statusCode!, body: got && JSON.parse(got), reused: req.reusedSocket }),
            );
          },
        );
        req.on('error', reject);
        req.end(text);
      });
    const listTasks = { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} };
    try {
      const first = await send('GET', '/api/me', keeper.token);
      expect(first).toMatchObject({ status: 200, body: { handle: 'keeper' }, reused: false });
      expect(await send('GET', '/api/me', other.token)).toMatchObject({
        body: { handle: 'keeper-other' },
        reused: true,
      });
      expect(await send('GET', '/api/agents/keeper/tokens', ADMIN_TOKEN)).toMatchObject({ status: 200, reused: true });
      expect(await send('GET', '/api/agents/keeper/tokens', other.token)).toMatchObject({ status: 403, reused: true });
      const lastFlipped = `${keeper.token.slice(0, -1)}${keeper.token.endsWith('A') ? 'B' : 'A'}`;
      expect(await send('GET', '/api/me', lastFlipped)).toMatchObject({ status: 401, reused: true });
      expect(await send('POST', '/', keeper.token, listTasks)).toMatchObject({ status: 200, reused: true });
      const tokens = await rest(hub, 'GET', 'api/agents/keeper/tokens', { headers: admin });
      await rest(hub, 'DELETE', `api/agents/keeper/tokens/${tokens.body.tokens[0].id}`, { headers: admin });
      const revoked = await send('POST', '/', keeper.token, listTasks);
      expect(revoked).toMatchObject({ status: 401, reused: true, body: { error: { code: -32010 } } });
      expect(await send('GET', '/api/me', keeper.token)).toMatchObject({ status: 401, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('admin registration mode needs the admin token', async () => {
    const strict = await startTestHub({ MUSTER_REGISTRATION: 'admin' });
    try {
      const anon = await rest(strict, 'POST', 'api/agents', { body: { handle: 'nope' } });
      expect(anon.status).toBe(401);
      expect(anon.body.error.hint).toMatch(/admin/);
      const agent = await register(strict, 'first').catch(() => undefined);
      expect(agent).toBeUndefined();
      const ok = await rest(strict, 'POST', 'api/agents', { body: { handle: 'allowed' }, headers: admin });
      expect(ok.status).toBe(201);
      const byAgent = await rest(strict, 'POST', 'api/agents', { body: { handle: 'second' }, token: ok.body.token });
      expect(byAgent.status).toBe(403);
    } finally {
      await strict.destroy();
    }
  });
});

describe('health and request guards', () => {
  it('health shows the store and the admin token fingerprint', async () => {
    const res = await rest(hub, 'GET', 'health');
    expect(res.body).toMatchObject({ status: 'ok', store: testDialect });
    expect(res.body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(res.body.adminTokenFingerprint).toBe(createHash('sha256').update(ADMIN_TOKEN).digest('hex').slice(0, 16));
  });

  const withHost = (host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: hub.port, path: '/health', headers: { host } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('a bad token is a 401 on every route, even health and cards', async () => {
    for (const path of ['health', '.well-known/agent-card.json', 'api/agents/taken']) {
      const res = await rest(hub, 'GET', path, { token: 'mst_not-a-token' });
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('the admin has no inbox (403); an anonymous caller is asked for a token (401)', async () => {
    expect((await rest(hub, 'GET', 'api/inbox', { headers: admin })).status).toBe(403);
    expect((await rest(hub, 'GET', 'api/sent')).status).toBe(401);
  });

  it('refuses a DNS-rebinding Host header, accepts loopback names', async () => {
    const evil = await withHost('evil.example.com');
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.code).toBe('FORBIDDEN');
    expect((await withHost(`localhost:${hub.port}`)).status).toBe(200);
    expect((await withHost(`127.0.0.1:${hub.port}`)).status).toBe(200);
  });

  it('refuses a write from a foreign Origin and sends no CORS headers', async () => {
    const res = await rest(hub, 'POST', 'api/agents', {
      body: { handle: 'from-web' },
      headers: { origin: 'https://evil.example.com' },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const same = await rest(hub, 'POST', 'api/agents', {
      body: { handle: 'from-self' },
      headers: { origin: hub.url.replace(/\/$/, '') },
    });
    expect(same.status).toBe(201);
    const rpcRes = await rpc(hub.url, 'GetTask', { id: 'x' }, { headers: { origin: 'https://evil.example.com' } });
    expect(rpcRes.status).toBe(403);
    expect(rpcRes.body.error.code).toBe(-32011);
  });
});
