/**
 * One Server-Sent Events response, as every stream of the hub writes it (A2A task streams, the live
 * inbox, the web feed): the headers, a keep-alive comment every heartbeat, and blocks written only
 * as fast as the socket takes them. A subscriber that stops draining is cut (it resumes with
 * Last-Event-ID), so none holds a growing buffer; a failure mid-stream is said as the stream's own
 * error block, and the stream ends when the client leaves or `abort` fires.
 */
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { StreamSettings } from '../../config/index.js';
import { drained } from './drained.js';

class TooFarBehind extends Error {}

/** An SSE block as one chunk of an HTTP/1.1 chunked body: its size in hex, CRLF, the block, CRLF. */
const chunkOf = (block: string): string => `${Buffer.byteLength(block).toString(16)}\r\n${block}\r\n`;

/**
 * An SSE block encoded once and framed as a chunk (chunkOf), which a chunked stream's socket takes
 * as it is; a fan-out writes the same one to every subscriber.
 */
export class FramedBlock {
  readonly chunk: Buffer;
  /** The block alone, within `chunk`. */
  readonly bytes: Buffer;

  constructor(block: string) {
    this.chunk = Buffer.from(chunkOf(block));
    const start = this.chunk.indexOf('\r\n') + 2;
    this.bytes = this.chunk.subarray(start, this.chunk.length - 2);
  }
}

/** Writes one SSE block (it ends with a blank line); resolves once the socket can take more. */
export type SendBlock = (block: string | FramedBlock) => Promise<void>;

/** An SSE block: an optional `id:` line and an optional `data:` line. */
export const sseBlock = (id: string | number | undefined, data?: string): string =>
  `${id === undefined ? '' : `id: ${id}\n`}${data === undefined ? '' : `data: ${data}\n`}\n`;

const KEEP_ALIVE = new FramedBlock(': keep-alive\n\n');
const TAKEN = Promise.resolve();

/**
 * The reason a response's end, or its client's leaving, aborts its signal with: abort() without one
 * builds a DOMException, with its stack, on every call (even on a signal already aborted), and the
 * end of a stream calls it up to three times.
 */
export const RESPONSE_ENDED = new DOMException('The response ended', 'AbortError');

/**
 * Writes a block to the stream; answers what to await 'drain' from when it is full, undefined
 * when it has room. Every block goes to a chunked response's socket already framed: one socket
 * write per block, where node:http frames it in four pieces, which on each fresh response's first
 * writes costs several times more (measured: 1,000 streams' first event 60-120 ms of CPU against
 * 20); and a stream's first block (its snapshot) warms the path its live events take. A response
 * still waiting for its socket (pipelined) or whose socket is closing goes through node:http.
 */
function writeBlock(res: ServerResponse, block: string | FramedBlock): Writable | undefined {
  const { socket } = res;
  if (res.chunkedEncoding && socket?.writable) {
    return socket.write(typeof block === 'string' ? chunkOf(block) : block.chunk) ? undefined : socket;
  }
  return res.write(typeof block === 'string' ? block : block.bytes) ? undefined : res;
}

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
  res.on('close', () => abort.abort(RESPONSE_ENDED));
  if (res.destroyed) abort.abort(RESPONSE_ENDED); // the client left before the stream began: its close was already heard by no one
  const stopBeating = keepAlive(res, settings.heartbeatMs);
  const untilDrained = async (full: Writable) => {
    if (!(await drained(full, settings.drainTimeoutMs, abort.signal))) throw new TooFarBehind();
  };
  // A block the socket takes at once answers a promise already settled: no async call per event and subscriber.
  const send: SendBlock = (block) => {
    const full = writeBlock(res, block);
    return full ? untilDrained(full) : TAKEN;
  };
  let behind = false;
  try {
    await write(send);
  } catch (error) {
    behind = error instanceof TooFarBehind;
    if (!behind && !abort.signal.aborted) writeBlock(res, failed(error));
  } finally {
    stopBeating();
    abort.abort(RESPONSE_ENDED); // stops the stream's reader if it ended on our side
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
    beat = { streams, timer: setInterval(() => streams.forEach((s) => writeBlock(s, KEEP_ALIVE)), ms) };
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
