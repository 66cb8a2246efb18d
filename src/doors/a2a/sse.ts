import type { ServerResponse } from 'node:http';
import { FramedBlock, sseBlock, writeSse } from '../http/sse.js';
import { errorAnswer, type JsonRpcId } from './jsonrpc.js';
import type { StreamResponse } from '../../a2a/types.js';
import type { StreamSettings } from '../../config/index.js';
import type { Subscription } from '../../hub/following.js';
import type { EventStream, WireFormat } from './methods.js';

/**
 * How a binding frames its events: the `data:` of one event is `open` + the event's JSON + `close`;
 * `error` is the whole SSE block of a failure mid-stream.
 */
export interface SseFrames {
  open: string;
  close: string;
  error: (error: unknown) => string;
}

/** JSON-RPC: each event is a JSON-RPC response with the request's id; a failure is a JSON-RPC error response. */
export const jsonRpcFrames = (id: JsonRpcId): SseFrames => ({
  open: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`,
  close: '}',
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
  const { wire } = stream;
  const { events } = stream.subscription;
  let subscription: Subscription | undefined = stream.subscription;
  return writeSse(
    res,
    abort,
    settings,
    async (send) => {
      const { snapshot, snapshotSeq, resuming } = subscription!;
      subscription = undefined; // the snapshot is written once, not held for as long as the stream stays open
      // A resumed stream replays events older than its snapshot: the snapshot then carries no id, so ids only ever rise.
      await send(
        sseBlock(
          resuming ? undefined : snapshotSeq,
          `${frames.open}${JSON.stringify(wire.shape({ task: snapshot }))}${frames.close}`,
        ),
      );
      const envelope = frames.open + frames.close; // the block cache's key, made once per stream
      for await (const { seq, event } of events) {
        await send(eventBlock(seq, event, wire.shape, frames, envelope));
        if (wire.ends(event)) break;
      }
    },
    frames.error,
  );
}

/**
 * Fast path of a fan-out: live events reach every subscriber of a task as the same object
 * (events/wakeups.ts), after the view has let each subscriber see it, so its SSE block is built,
 * encoded and framed (http/sse.ts FramedBlock) once per event, wire shape and envelope, and the same
 * bytes are written to every socket. An event is one log entry, so its seq is part of it.
 */
const blocks = new WeakMap<object, Map<WireFormat['shape'], Map<string, FramedBlock>>>();
function eventBlock(
  seq: number,
  event: StreamResponse,
  shape: WireFormat['shape'],
  frames: SseFrames,
  envelope: string,
): FramedBlock {
  let byShape = blocks.get(event);
  if (!byShape) blocks.set(event, (byShape = new Map()));
  let byEnvelope = byShape.get(shape);
  if (!byEnvelope) byShape.set(shape, (byEnvelope = new Map()));
  let block = byEnvelope.get(envelope);
  if (!block) {
    block = new FramedBlock(sseBlock(seq, `${frames.open}${JSON.stringify(shape(event))}${frames.close}`));
    byEnvelope.set(envelope, block);
  }
  return block;
}
