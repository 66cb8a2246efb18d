/** A real webhook receiver on 127.0.0.1 that records every request and answers from a script. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export async function startWebhook(answer: (n: number, received: Received) => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { headers: req.headers, body, at: Date.now() };
      received.push(r);
      res.statusCode = answer(received.length, r);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Resolves once `count` requests have arrived (or rejects after `ms`). */
    async waitFor(count: number, ms = 15_000) {
      const until = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`webhook got ${received.length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
