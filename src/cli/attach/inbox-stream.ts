/**
 * Holds an agent's live inbox (GET /api/inbox/stream) for as long as it is asked to: a dropped
 * stream, or a hub that is down for a while, is opened again with Last-Event-ID after a growing
 * wait, so every event comes once, in order. A refusal of the stream itself (a bad token, a
 * forbidden caller) is final.
 */
import { CliError, EXIT } from '../client/errors.js';
import { readAnswer, send, type Target } from '../client/http.js';
import type { InboxEvent } from '../../store/inbox.js';
import { sseBlocks } from '../client/sse.js';

/** Waits before reopening, in ms: the first, doubled after each failure up to the last. */
const FIRST_WAIT_MS = 200;
const MOST_WAIT_MS = 10_000;

export interface Delivered {
  id: string;
  event: InboxEvent;
}

export async function* holdInbox(target: Target, signal: AbortSignal, say: (line: string) => void): AsyncGenerator<Delivered> {
  let lastId: string | undefined;
  let wait = FIRST_WAIT_MS;
  while (!signal.aborted) {
    let opened = false;
    try {
      const { response, sentToken } = await send(target, 'api/inbox/stream', {
        headers: { accept: 'text/event-stream', ...(lastId !== undefined ? { 'last-event-id': lastId } : {}) },
        signal,
      });
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
        await readAnswer(target, response, sentToken); // the refusal, as the hub said it
        throw new CliError('NOT_A_HUB', `${target.url} answered without an event stream; is it a Muster hub?`, EXIT.unreachable);
      }
      opened = true;
      wait = FIRST_WAIT_MS;
      say(lastId === undefined ? 'holding the live inbox' : `holding the live inbox again, from event ${lastId}`);
      for await (const block of sseBlocks(response.body)) {
        if (block.id !== undefined) lastId = block.id;
        if (block.event === 'error') say(`the hub ended the stream: ${block.data}`);
        else if (block.data !== undefined && block.id !== undefined) yield { id: block.id, event: JSON.parse(block.data) as InboxEvent };
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof CliError && error.exit !== EXIT.unreachable) throw error;
      if (!opened) say(`cannot reach the hub (${(error as Error).message}); trying again in ${wait} ms`);
    }
    if (signal.aborted) return;
    await new Promise((r) => setTimeout(r, wait * (0.75 + Math.random() / 2)));
    if (!opened) wait = Math.min(wait * 2, MOST_WAIT_MS);
  }
}
