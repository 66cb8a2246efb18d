/**
 * Following a task until it settles (ends, or needs the sender: input-required, auth-required) or
 * a number of seconds pass, through its stream (SubscribeToTask over SSE): what `muster send
 * --wait N` does after a send the hub answered at once. The stream is the wait, so no request
 * waits on a timeout shorter than the wait.
 */
import type { StreamResponse, TaskState } from '../a2a/types.js';
import { send, type Target } from './http.js';
import { sseBlocks } from './sse.js';
import { settles } from './states.js';

/** After a stream dropped, the pause before it is opened again (while time is left). */
const REOPEN_MS = 200;

const stateOf = (update: StreamResponse): TaskState | undefined =>
  'task' in update ? update.task.status.state : 'statusUpdate' in update ? update.statusUpdate.status.state : undefined;

/** Follows task `id` at `base` until it settles or `seconds` pass; a stream that drops is opened again while time is left. */
export async function followUntilSettled(target: Target, base: string, id: string, seconds: number): Promise<void> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), seconds * 1000);
  try {
    while (!deadline.signal.aborted) {
      if (await streamSettles(target, base, id, deadline.signal)) return;
      await new Promise((r) => setTimeout(r, REOPEN_MS));
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Reads one stream of the task; answers true when there is nothing more to follow (it settled, or the hub refused the stream). */
async function streamSettles(target: Target, base: string, id: string, signal: AbortSignal): Promise<boolean> {
  try {
    const { response } = await send(target, base, {
      body: { jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } },
      headers: { 'a2a-version': '1.0', accept: 'text/event-stream' },
      signal,
    });
    // Refused (a task that ended already is): the read after the wait says how the task stands.
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) return true;
    for await (const block of sseBlocks(response.body)) {
      const data =
        block.data === undefined ? undefined : (JSON.parse(block.data) as { result?: StreamResponse; error?: unknown });
      const state = data?.result && stateOf(data.result);
      if (data?.error !== undefined || (state !== undefined && settles(state))) return true;
    }
    return false;
  } catch {
    return false; // the time ran out, or the connection dropped
  }
}
