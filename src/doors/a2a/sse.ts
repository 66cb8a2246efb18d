import type { ServerResponse } from 'node:http';
import { drained } from '../http/drained.js';
import { errorAnswer, type JsonRpcId } from './jsonrpc.js';
import type { StreamResponse } from '../../a2a/types.js';
import type { StreamSettings } from '../../config/index.js';
import type { EventStream, WireFormat } from './methods.js';


class TooFarBehind extends Error {}

/** How a binding frames its events: the `data:` of one event, and the whole SSE block of a failure mid-stream. */
export interface SseFrames {
  data: (result: string) => string;
  error: (error: unknown) => string;
}

/** JSON-RPC: each event is a JSON-RPC response with the request's id; a failure is a JSON-RPC error response. */
export const jsonRpcFrames = (id: JsonRpcId): SseFrames => ({
  data: (result) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`,
  error: (error) => `data: ${JSON.stringify(errorAnswer(id, error).body)}\n\n`,
});

/**
 * Writes an event stream as SSE: each event is one `data:` line (framed by its binding), with
 * the task's event sequence number as its `id`. Events are pulled from the log
 * one at a time and only after the socket has taken the previous one, so a slow subscriber
 * holds no growing buffer; one that stops draining is closed and can resume with Last-Event-ID.
 */
export async function writeEventStream(res: ServerResponse, frames: SseFrames, stream: EventStream, abort: AbortController, settings: StreamSettings): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  res.on('close', () => abort.abort());
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), settings.heartbeatMs);
  const send = async (seq: number | undefined, data: string) => {
    if (res.write(`${seq === undefined ? '' : `id: ${seq}\n`}data: ${data}\n\n`)) return;
    if (!(await drained(res, settings.drainTimeoutMs, abort.signal))) throw new TooFarBehind();
  };
  const { subscription, wire } = stream;
  const envelope = frames.data;
  try {
    // A resumed stream replays events older than its snapshot: the snapshot then carries no id, so ids only ever rise.
    await send(subscription.resuming ? undefined : subscription.snapshotSeq, envelope(JSON.stringify(wire.shape({ task: subscription.snapshot }))));
    for await (const { seq, event } of subscription.events) {
      await send(seq, envelope(serialized(event, wire.shape)));
      if (wire.ends(event)) break;
    }
  } catch (error) {
    if (!(error instanceof TooFarBehind) && !abort.signal.aborted) res.write(frames.error(error));
  } finally {
    clearInterval(heartbeat);
    abort.abort(); // stops the log reader if the stream ended on our side
    res.end();
  }
}

/**
 * Live events reach every subscriber of a task as the same object, so each is serialised once
 * per wire shape, not once per subscriber.
 */
const cache = new WeakMap<object, Map<WireFormat['shape'], string>>();
function serialized(event: StreamResponse, shape: WireFormat['shape']): string {
  let byShape = cache.get(event);
  if (!byShape) cache.set(event, (byShape = new Map()));
  let text = byShape.get(shape);
  if (text === undefined) byShape.set(shape, (text = JSON.stringify(shape(event))));
  return text;
}
