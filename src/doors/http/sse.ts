/**
 * One Server-Sent Events response, as every stream of the hub writes it (A2A task streams, the live
 * inbox, the web feed): the headers, a keep-alive comment every heartbeat, and blocks written only
 * as fast as the socket takes them. A subscriber that stops draining is cut (it resumes with
 * Last-Event-ID), so none holds a growing buffer; a failure mid-stream is said as the stream's own
 * error block, and the stream ends when the client leaves or `abort` fires.
 */
import type { ServerResponse } from 'node:http';
import type { StreamSettings } from '../../config/index.js';
import { drained } from './drained.js';

class TooFarBehind extends Error {}

/** Writes one SSE block (it ends with a blank line); resolves once the socket can take more. */
export type SendBlock = (block: string | Buffer) => Promise<void>;

/** An SSE block: an optional `id:` line and an optional `data:` line. */
export const sseBlock = (id: string | number | undefined, data?: string): string =>
  `${id === undefined ? '' : `id: ${id}\n`}${data === undefined ? '' : `data: ${data}\n`}\n`;

/** `headers` are added to (or replace) the stream's own. */
export async function writeSse(
  res: ServerResponse,
  abort: AbortController,
  settings: StreamSettings,
  write: (send: SendBlock) => Promise<void>,
  failed: (error: unknown) => string,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  res.writeHead(
    200,
    Object.assign(
      {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      },
      headers,
    ),
  );
  res.flushHeaders();
  res.on('close', () => abort.abort());
  if (res.destroyed) abort.abort(); // the client left before the stream began: its close was already heard by no one
  const stopBeating = keepAlive(res, settings.heartbeatMs);
  const send: SendBlock = async (block) => {
    if (res.write(block)) return;
    if (!(await drained(res, settings.drainTimeoutMs, abort.signal))) throw new TooFarBehind();
  };
  let behind = false;
  try {
    await write(send);
  } catch (error) {
    behind = error instanceof TooFarBehind;
    if (!behind && !abort.signal.aborted) res.write(failed(error));
  } finally {
    stopBeating();
    abort.abort(); // stops the stream's reader if it ended on our side
    // A reader too far behind is cut, not ended: ending would wait on its full buffer for as long as it reads nothing.
    if (behind) res.destroy();
    else res.end();
  }
}

/**
 * The streams that get a keep-alive comment every `ms`, all on one timer: a stream costs a set
 * entry rather than a timer of its own, and its first comment comes within `ms` of its start.
 */
const beating = new Map<number, { streams: Set<ServerResponse>; timer: NodeJS.Timeout }>();
function keepAlive(res: ServerResponse, ms: number): () => void {
  let beat = beating.get(ms);
  if (!beat) {
    const streams = new Set<ServerResponse>();
    beat = { streams, timer: setInterval(() => streams.forEach((s) => s.write(': keep-alive\n\n')), ms) };
    beating.set(ms, beat);
  }
  const { streams, timer } = beat;
  streams.add(res);
  return () => {
    if (!streams.delete(res) || streams.size > 0) return;
    clearInterval(timer);
    beating.delete(ms);
  };
}
