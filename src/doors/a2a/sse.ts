import type { ServerResponse } from 'node:http';
import { sseBlock, writeSse } from '../http/sse.js';
import { errorAnswer, type JsonRpcId } from './jsonrpc.js';
import type { StreamResponse } from '../../a2a/types.js';
import type { StreamSettings } from '../../config/index.js';
import type { EventStream, WireFormat } from './methods.js';

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
 * Writes an event stream as SSE (http/sse.ts): each event is one `data:` line (framed by its
 * binding), with the task's event sequence number as its `id`. Events are pulled from the log one
 * at a time and only after the socket has taken the previous one.
 */
export function writeEventStream(
  res: ServerResponse,
  frames: SseFrames,
  stream: EventStream,
  abort: AbortController,
  settings: StreamSettings,
): Promise<void> {
  const { subscription, wire } = stream;
  const envelope = frames.data;
  return writeSse(
    res,
    abort,
    settings,
    async (send) => {
      // A resumed stream replays events older than its snapshot: the snapshot then carries no id, so ids only ever rise.
      await send(
        sseBlock(
          subscription.resuming ? undefined : subscription.snapshotSeq,
          envelope(JSON.stringify(wire.shape({ task: subscription.snapshot }))),
        ),
      );
      for await (const { seq, event } of subscription.events) {
        await send(sseBlock(seq, envelope(serialized(event, wire.shape))));
        if (wire.ends(event)) break;
      }
    },
    frames.error,
  );
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
