// A small local HTTP receiver for push notifications: records every POST it gets.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { until } from './hub.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  json: any;
}

export interface Receiver {
  url: string;
  received: Received[];
  waitFor(what: string, pred: (r: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      received.push({ path: req.url ?? '', headers: req.headers, raw, json });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    waitFor: (what, pred, timeoutMs = 20_000) => until(what, async () => received.find(pred), timeoutMs),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
