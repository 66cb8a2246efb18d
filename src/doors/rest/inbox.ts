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
import { drained } from '../http/drained.js';
import type { OpenStreams } from '../http/open-streams.js';

export interface InboxRouteOptions {
  streams: StreamSettings;
  /** The process's open streams: the live inbox counts in the caller's slots, ends with the token and at shutdown. */
  open: OpenStreams;
}

export function inboxRoutes(app: FastifyInstance, hub: Hub, options: InboxRouteOptions): void {

  app.get('/api/inbox/stream', { config: { door: 'rest' } }, async (request, reply) => {
    const handle = requireAgent(await callerOf(hub, request), 'hold a live inbox (it is the agent\'s own feed)');
    const lastEventId = request.headers['last-event-id'];
    const abort = new AbortController();
    reply.raw.once('close', () => abort.abort()); // heard even if the client leaves while its lease is taken below
    const items = await hub.inbox.stream(handle, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, abort.signal);
    const release = options.open.reserve(handle);
    const presence = await hub.inbox.listen(handle, options.streams.heartbeatMs).catch((e: unknown) => {
      release();
      throw e;
    });
    const ended = options.open.hold(handle, abort);
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

/** Writes the items as SSE until the stream ends, the client leaves, or the socket stops draining. */
async function writeInbox(res: ServerResponse, items: AsyncGenerator<InboxItem>, abort: AbortController, settings: StreamSettings): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  res.on('close', () => abort.abort());
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), settings.heartbeatMs);
  try {
    for await (const { id, event } of items) {
      if (abort.signal.aborted) break;
      if (res.write(event ? `id: ${id}\ndata: ${JSON.stringify(event)}\n\n` : `id: ${id}\n\n`)) continue;
      if (!(await drained(res, settings.drainTimeoutMs, abort.signal))) break; // too far behind: it resumes with Last-Event-ID
    }
  } catch (error) {
    if (!abort.signal.aborted) res.write(`event: error\ndata: ${JSON.stringify(restErrorBody(asHubError(error)))}\n\n`);
  } finally {
    clearInterval(heartbeat);
    abort.abort();
    await items.return(undefined);
    res.end();
  }
}

