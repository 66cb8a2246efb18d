import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTarget, safeSend } from './safe-client.js';
import { refusal, failure } from '../../test/helpers/rejections.js';

/** A real server on 127.0.0.1, counting the connections it accepts. */
interface TestServer {
  url: string;
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}

async function startHttpServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  return listen(server, 'http', () => server.closeAllConnections());
}

/** A bare TCP listener: proves whether anything connected at all, whatever the protocol. */
async function startTcpServer(): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return listen(server, 'tcp', () => sockets.forEach((s) => s.destroy()));
}

async function listen(server: net.Server, scheme: string, dropConnections: () => void): Promise<TestServer> {
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}

const STRICT = { allowPrivate: false };
const PRIVATE_OK = { allowPrivate: true };

const servers: TestServer[] = [];
async function track(server: Promise<TestServer>): Promise<TestServer> {
  servers.push(await server);
  return servers[servers.length - 1]!;
}
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('safeSend', () => {
  it('refuses http with private targets disallowed before connecting', async () => {
    const server = await track(startHttpServer((_req, res) => res.end('ok')));
    await refusal(safeSend({ url: `${server.url}/hook` }, STRICT), 'scheme');
    expect(server.connections()).toBe(0);
  });

  it('refuses IP literals before connecting', async () => {
    const server = await track(startTcpServer());
    await refusal(safeSend({ url: `https://127.0.0.1:${server.port}/` }, STRICT), 'private-address');
    await refusal(safeSend({ url: `https://[::ffff:127.0.0.1]:${server.port}/` }, STRICT), 'private-address');
    expect(server.connections()).toBe(0);
  });

  it('checks the resolved address at connect time, without a prior checkTarget', async () => {
    const server = await track(startTcpServer());
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: Function) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }])) as never);
    const error = await refusal(
      safeSend({ url: `https://loopy.example:${server.port}/hook`, body: '{}' }, { ...STRICT, timeoutMs: 2_000 }),
      'private-address',
    );
    expect(error.message).toMatch(/loopy\.example resolves to 127\.0\.0\.1/);
    expect(server.connections()).toBe(0);
  });

  it('refuses when DNS changes to a private address after checkTarget passed (rebinding)', async () => {
    const server = await track(startTcpServer());
    const answers = ['93.184.216.34', '127.0.0.1'];
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: Function) =>
      callback(null, [{ address: answers.shift() ?? '127.0.0.1', family: 4 }])) as never);
    const url = `https://rebind.example:${server.port}/hook`;
    await expect(checkTarget(url, STRICT)).resolves.toBeInstanceOf(URL);
    await refusal(safeSend({ url, body: '{}' }, { ...STRICT, timeoutMs: 2_000 }), 'private-address');
    expect(server.connections()).toBe(0);
  });

  it('sends to 127.0.0.1 over http when private targets are allowed, and returns status, headers and body', async () => {
    const seen: { method?: string; headers?: Record<string, unknown>; body?: string } = {};
    const server = await track(
      startHttpServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          Object.assign(seen, { method: req.method, headers: req.headers, body });
          res.writeHead(202, { 'x-answer': 'yes' }).end('accepted');
        });
      }),
    );
    const body = JSON.stringify({ task: { id: 't-1' } });
    const result = await safeSend(
      {
        url: `${server.url}/hook?x=1`,
        headers: { 'Content-Type': 'application/json', Cookie: 'a=b', 'X-A2A-Notification-Token': 'tok' },
        body,
      },
      PRIVATE_OK,
    );
    expect(result.status).toBe(202);
    expect(result.headers['x-answer']).toBe('yes');
    expect(result.body.toString()).toBe('accepted');
    expect(result.url).toBe(`${server.url}/hook?x=1`);
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe(body);
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.headers?.['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers?.['x-a2a-notification-token']).toBe('tok');
    expect(seen.headers?.cookie).toBeUndefined();
  });

  it('follows a same-origin redirect, keeping method and body on 307', async () => {
    const hits: string[] = [];
    const server = await track(
      startHttpServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          hits.push(`${req.method} ${req.url} ${body}`);
          if (req.url === '/old') res.writeHead(307, { location: '/new' }).end();
          else res.end(`got ${body}`);
        });
      }),
    );
    const result = await safeSend({ url: `${server.url}/old`, body: 'payload' }, PRIVATE_OK);
    expect(result.status).toBe(200);
    expect(result.body.toString()).toBe('got payload');
    expect(result.url).toBe(`${server.url}/new`);
    expect(hits).toEqual(['POST /old payload', 'POST /new payload']);
  });

  it('turns a POST into a GET on 303', async () => {
    const hits: string[] = [];
    const server = await track(
      startHttpServer((req, res) => {
        hits.push(`${req.method} ${req.url} ${req.headers['content-type'] ?? '-'}`);
        if (req.url === '/post') res.writeHead(303, { location: `${server.url}/result` }).end();
        else res.end('done');
      }),
    );
    const result = await safeSend(
      { url: `${server.url}/post`, body: '{}', headers: { 'content-type': 'application/json' } },
      PRIVATE_OK,
    );
    expect(result.body.toString()).toBe('done');
    expect(hits).toEqual(['POST /post application/json', 'GET /result -']);
  });

  it('refuses a redirect to another origin without contacting it', async () => {
    const elsewhere = await track(startHttpServer((_req, res) => res.end('elsewhere')));
    const server = await track(
      startHttpServer((_req, res) => res.writeHead(302, { location: `${elsewhere.url}/hook` }).end()),
    );
    const error = await refusal(safeSend({ url: `${server.url}/hook` }, PRIVATE_OK), 'redirect');
    expect(error.message).toMatch(/another origin/);
    expect(elsewhere.connections()).toBe(0);
    expect(server.connections()).toBe(1);
  });

  it('refuses a redirect to the same host under another scheme or name', async () => {
    const server = await track(
      startHttpServer((req, res) => {
        const target =
          req.url === '/to-https' ? `https://127.0.0.1:${server.port}/x` : `http://localhost:${server.port}/x`;
        res.writeHead(301, { location: target }).end();
      }),
    );
    await refusal(safeSend({ url: `${server.url}/to-https` }, PRIVATE_OK), 'redirect');
    await refusal(safeSend({ url: `${server.url}/to-localhost` }, PRIVATE_OK), 'redirect');
  });

  it('follows at most maxRedirects redirects', async () => {
    const server = await track(
      startHttpServer((req, res) => {
        const n = Number(req.url?.slice(1));
        if (n < 4) res.writeHead(302, { location: `/${n + 1}` }).end();
        else res.end(`arrived at ${n}`);
      }),
    );
    const error = await refusal(safeSend({ url: `${server.url}/0` }, PRIVATE_OK), 'redirect');
    expect(error.message).toMatch(/more than 3/);
    const result = await safeSend({ url: `${server.url}/0` }, { ...PRIVATE_OK, maxRedirects: 4 });
    expect(result.body.toString()).toBe('arrived at 4');
  });

  it('times out on a server that never answers', async () => {
    const server = await track(startHttpServer(() => {}));
    const started = Date.now();
    const error = await failure(
      safeSend({ url: `${server.url}/slow`, body: '{}' }, { ...PRIVATE_OK, timeoutMs: 300 }),
      'timeout',
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2_000);
    expect(error.message).toMatch(/300 ms/);
    expect(server.connections()).toBe(1);
  });

  it('times out on a body that trickles past the deadline', async () => {
    const server = await track(
      startHttpServer((_req, res) => {
        res.writeHead(200);
        res.write('a');
        setTimeout(() => res.end('b'), 1_000);
      }),
    );
    await failure(safeSend({ url: server.url }, { ...PRIVATE_OK, timeoutMs: 300 }), 'timeout');
  });

  it('refuses a response over 256 KB, declared or chunked', async () => {
    const big = Buffer.alloc(300 * 1024, 'x');
    const declared = await track(
      startHttpServer((_req, res) => res.writeHead(200, { 'content-length': big.length }).end(big)),
    );
    await failure(safeSend({ url: declared.url }, PRIVATE_OK), 'too-large');
    const chunked = await track(
      startHttpServer((_req, res) => {
        for (let i = 0; i < 30; i++) res.write(big.subarray(i * 10 * 1024, (i + 1) * 10 * 1024));
        res.end();
      }),
    );
    const error = await failure(safeSend({ url: chunked.url }, PRIVATE_OK), 'too-large');
    expect(error.message).toMatch(/262144 bytes/);
  });

  it('reads a response just under the cap in full', async () => {
    const body = Buffer.alloc(256 * 1024, 'y');
    const server = await track(startHttpServer((_req, res) => res.end(body)));
    const result = await safeSend({ url: server.url }, PRIVATE_OK);
    expect(result.body.length).toBe(body.length);
  });

  it('reports a refused connection as a network failure with its code', async () => {
    const server = await track(startHttpServer((_req, res) => res.end()));
    const url = server.url;
    await server.close();
    const error = await failure(safeSend({ url }, PRIVATE_OK), 'network');
    expect(error.code).toBe('ECONNREFUSED');
  });

  it('reports a connection cut mid-answer as a network failure', async () => {
    const server = await track(
      startHttpServer((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        setTimeout(() => res.socket?.destroy(), 20);
      }),
    );
    await failure(safeSend({ url: server.url }, PRIVATE_OK), 'network');
  });
});
