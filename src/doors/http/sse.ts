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
export type SendBlock = (block: string) => Promise<void>;

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
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), settings.heartbeatMs);
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
    clearInterval(heartbeat);
    abort.abort(); // stops the stream's reader if it ended on our side
    // A reader too far behind is cut, not ended: ending would wait on its full buffer for as long as it reads nothing.
    if (behind) res.destroy();
    else res.end();
  }
}
