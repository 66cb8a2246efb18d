/**
 * Holds an agent's live inbox (GET /api/inbox/stream) for as long as it is asked to: a dropped
 * stream, or a hub that is down for a while, is opened again with Last-Event-ID after a growing
 * wait, so every event comes once, in order. A refusal of the stream itself (a bad token, a
 * forbidden caller) is final.
 */
import { CliError, EXIT, mayPass } from '../../client/errors.js';
import { readAnswer, send, type Target } from '../../client/http.js';
import type { InboxEvent } from '../../wire/inbox.js';
import { sseBlocks } from '../../client/sse.js';

/** Waits before reopening, in ms: the first, doubled after each failure up to the last. */
const FIRST_WAIT_MS = 200;
const MOST_WAIT_MS = 10_000;
/** A connection that carries nothing, not even the hub's keep-alive (every 15 s by default), this long is taken as dropped. */
const QUIET_MS = 60_000;

export interface Delivered {
  id: string;
  event: InboxEvent;
}

export async function* holdInbox(
  target: Target,
  signal: AbortSignal,
  say: (line: string) => void,
): AsyncGenerator<Delivered> {
  let lastId: string | undefined;
  let wait = FIRST_WAIT_MS;
  while (!signal.aborted) {
    let opened = false;
    // Ended by the caller, or by a connection gone quiet (dropped by a NAT or a proxy without a word).
    const quiet = new AbortController();
    const stop = () => quiet.abort();
    signal.addEventListener('abort', stop, { once: true });
    let timer = setTimeout(stop, QUIET_MS);
    const heard = () => {
      clearTimeout(timer);
      timer = setTimeout(stop, QUIET_MS);
    };
    try {
      const { response, sentToken } = await send(target, 'api/inbox/stream', {
        headers: { accept: 'text/event-stream', ...(lastId !== undefined ? { 'last-event-id': lastId } : {}) },
        signal: quiet.signal,
      });
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
        await readAnswer(target, response, sentToken); // the refusal, as the hub said it
        throw new CliError(
          'NOT_A_HUB',
          `${target.url} answered without an event stream; is it a Muster hub?`,
          EXIT.unreachable,
        );
      }
      opened = true;
      wait = FIRST_WAIT_MS;
      say(lastId === undefined ? 'holding the live inbox' : `holding the live inbox again, from event ${lastId}`);
      for await (const block of sseBlocks(response.body, heard)) {
        if (block.id !== undefined) lastId = block.id;
        if (block.event === 'error') say(`the hub ended the stream: ${block.data}`);
        else if (block.data !== undefined && block.id !== undefined)
          yield { id: block.id, event: JSON.parse(block.data) as InboxEvent };
      }
    } catch (error) {
      if (signal.aborted) return;
      // A refusal of the stream (a bad token, a forbidden caller) is final; the hub down, busy or stopping is not.
      if (error instanceof CliError && error.exit !== EXIT.unreachable && !mayPass(error)) throw error;
      if (!opened) say(`cannot reach the hub (${(error as Error).message}); trying again in ${wait} ms`);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) return;
    await new Promise((r) => setTimeout(r, wait * (0.75 + Math.random() / 2)));
    if (!opened) wait = Math.min(wait * 2, MOST_WAIT_MS);
  }
}
