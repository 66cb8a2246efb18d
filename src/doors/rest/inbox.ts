/**
 * GET /api/inbox/stream: an agent's live inbox as Server-Sent Events (hub/inbox.ts). Each event is
 * one `data:` line of JSON with its `id`; an `id:` line alone marks where a stream has got to
 * (the end of the open tasks' replay), so a client's Last-Event-ID moves past it. Only the agent's
 * own token opens it; rotating or revoking that token closes it.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { StreamSettings } from '../../config/index.js';
import type { Hub } from '../../hub/hub.js';
import type { InboxItem } from '../../hub/inbox.js';
import { requireAgent } from '../../identity/caller.js';
import { asHubError, restErrorBody } from '../http/errors.js';
import { callerOf } from '../http/context.js';
import { sseBlock, writeSse } from '../http/sse.js';
import type { OpenStreams } from '../http/open-streams.js';

export interface InboxRouteOptions {
  streams: StreamSettings;
  /** The process's open streams: the live inbox counts in the caller's slots, ends with the token and at shutdown. */
  open: OpenStreams;
}

export function inboxRoutes(app: FastifyInstance, hub: Hub, options: InboxRouteOptions): void {
  app.get('/api/inbox/stream', { config: { door: 'rest' } }, async (request, reply) => {
    const caller = await callerOf(hub, request);
    const handle = requireAgent(caller, "hold a live inbox (it is the agent's own feed)");
    const lastEventId = request.headers['last-event-id'];
    const abort = new AbortController();
    reply.raw.once('close', () => abort.abort()); // heard even if the client leaves while its lease is taken below
    const items = await hub.inbox.stream(
      handle,
      Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
      abort.signal,
    );
    const release = options.open.reserve(handle);
    const presence = await hub.inbox.listen(handle, options.streams.heartbeatMs).catch((e: unknown) => {
      release();
      throw e;
    });
    const ended = options.open.hold(handle, abort, caller);
    reply.hijack();
    try {
      await writeInbox(reply.raw, items, abort, options.streams);
    } finally {
      ended();
      release();
      await presence.release();
    }
  });
}

/** Writes the items as SSE (http/sse.ts) until the stream ends, the client leaves, or the socket stops draining. */
function writeInbox(
  res: ServerResponse,
  items: AsyncGenerator<InboxItem>,
  abort: AbortController,
  settings: StreamSettings,
): Promise<void> {
  const failed = (error: unknown) => `event: error\ndata: ${JSON.stringify(restErrorBody(asHubError(error)))}\n\n`;
  return writeSse(
    res,
    abort,
    settings,
    async (send) => {
      for await (const { id, event } of items) {
        if (abort.signal.aborted) break;
        await send(sseBlock(id, event && JSON.stringify(event))); // an id alone marks where the stream has got to
      }
    },
    failed,
  ).finally(() => items.return(undefined));
}
