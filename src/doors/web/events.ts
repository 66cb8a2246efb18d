/**
 * GET /feed/events: the web feed's live news as Server-Sent Events, one `data:` line of JSON per
 * public change (hub/feed.ts says what it holds). Streams count against their address's slots,
 * end when the hub stops, and are cut when the browser stops reading.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { StreamSettings } from '../../config/index.js';
import type { Hub } from '../../hub/hub.js';
import type { OpenStreams } from '../http/open-streams.js';
import { SAFETY_HEADERS } from './headers.js';

/** Bytes a stream may have waiting to be read before it is cut: a page that reads nothing reconnects. */
const MAX_BACKLOG = 256 * 1024;

export function feedEventRoutes(app: FastifyInstance, hub: Hub, options: { open: OpenStreams; streams: StreamSettings }): void {
  app.get('/feed/events', { exposeHeadRoute: false }, async (request, reply) => {
    const who = `feed@${request.ip}`; // the feed is anonymous: its streams are counted by address
    const release = options.open.reserve(who);
    const abort = new AbortController();
    const ended = options.open.hold(who, abort);
    reply.hijack();
    try {
      await stream(reply.raw, hub, abort, options.streams.heartbeatMs);
    } finally {
      ended();
      release();
    }
  });
}

function stream(res: ServerResponse, hub: Hub, abort: AbortController, heartbeatMs: number): Promise<void> {
  res.writeHead(200, { ...SAFETY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.write(': the hub\'s public changes\n\n');
  const write = (text: string) => {
    if (res.writableLength > MAX_BACKLOG) abort.abort();
    else res.write(text);
  };
  const stop = hub.feed.subscribe((item) => write(`data: ${JSON.stringify(item)}\n\n`));
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
  return new Promise<void>((resolve) => {
    const end = () => {
      clearInterval(heartbeat);
      stop();
      res.end();
      resolve();
    };
    if (abort.signal.aborted || res.destroyed) return end(); // the hub stopping, or the client gone before the stream began
    abort.signal.addEventListener('abort', end, { once: true });
    res.once('close', () => abort.abort());
  });
}
