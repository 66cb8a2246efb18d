/**
 * GET /feed/events: the web feed's live news as Server-Sent Events, one `data:` line of JSON per
 * public change (hub/feed.ts says what it holds), written by the hub's one SSE writer
 * (http/sse.ts): paced by the socket, cut when the browser stops reading. Streams count against
 * their address's slots and end when the hub stops.
 */
import type { FastifyInstance } from 'fastify';
import type { StreamSettings } from '../../config/index.js';
import type { Hub } from '../../hub/hub.js';
import { asHubError, restErrorBody } from '../http/errors.js';
import type { OpenStreams } from '../http/open-streams.js';
import { sseBlock, writeSse, type SendBlock } from '../http/sse.js';
import { SAFETY_HEADERS } from './headers.js';

/** News a stream may have waiting to be written before it is cut: a page that reads nothing reconnects. */
const MOST_WAITING = 1_000;

const FEED_HEADERS = {
  ...SAFETY_HEADERS,
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
};

export function feedEventRoutes(
  app: FastifyInstance,
  hub: Hub,
  options: { open: OpenStreams; streams: StreamSettings },
): void {
  app.get('/feed/events', { exposeHeadRoute: false }, async (request, reply) => {
    const who = `feed@${request.ip}`; // the feed is anonymous: its streams are counted by address
    const release = options.open.reserve(who);
    const abort = new AbortController();
    const ended = options.open.hold(who, abort);
    reply.hijack();
    try {
      await writeSse(reply.raw, abort, options.streams, (send) => news(hub, send, abort), failed, FEED_HEADERS);
    } finally {
      ended();
      release();
    }
  });
}

const failed = (error: unknown) => `event: error\ndata: ${JSON.stringify(restErrorBody(asHubError(error)))}\n\n`;

/** Writes the feed's news as it comes, one item at a time, until `abort`; too much waiting cuts the stream. */
async function news(hub: Hub, send: SendBlock, abort: AbortController): Promise<void> {
  const waiting: string[] = [];
  let wake: (() => void) | undefined;
  const stop = hub.feed.subscribe((item) => {
    if (waiting.length >= MOST_WAITING) return abort.abort();
    waiting.push(JSON.stringify(item));
    wake?.();
  });
  abort.signal.addEventListener('abort', () => wake?.(), { once: true });
  try {
    await send(": the hub's public changes\n\n");
    while (!abort.signal.aborted) {
      const next = waiting.shift();
      if (next !== undefined) await send(sseBlock(undefined, next));
      else await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stop();
  }
}
