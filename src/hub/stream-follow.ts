/**
 * Following an endpoint's task by its stream (its card says it streams): one attempt subscribes
 * and brings each event into the hub's task as it comes, for as long as the lease allows; the
 * next attempt subscribes again at once, and its stream begins with the task whole, so nothing
 * said in between is lost. An endpoint that will not stream the task is followed by reading it.
 */
import { createParser } from 'eventsource-parser';
import { isTerminal } from '../a2a/states.js';
import type { Conversation, Verdict } from '../delivery/outbox.js';
import { readAnswer, readEvent, type RemoteEvent } from '../delivery/remote/answers.js';
import type { EndpointInterface } from '../delivery/remote/interface.js';
import { remoteRequest, type RemoteCall } from '../delivery/remote/requests.js';
import type { Delivery } from '../store/store.js';

/** How long one subscription is held: well within the outbox's 30 s lease. */
const HOLD_MS = 15_000;
/** A stream the endpoint ends sooner than this (a task waiting on input, say) is not opened again at once. */
const BRIEF_MS = 1_000;
/** Events waiting to be written past this are left to the next subscription, which begins with the task whole. */
const BACKLOG = 64;
/** The longest event the parser holds. */
const MAX_EVENT_BYTES = 2 * 1024 * 1024;

export interface StreamFollowing {
  /** Brings one event into the hub's task (in the order they came). */
  mirror(event: RemoteEvent): Promise<void>;
  /** The wait before the next read when the stream has nothing to hold (the poll's pace). */
  pause(): number;
  /** The endpoint would not stream the task: follow it by reading from now on. */
  fallBack(): Promise<void>;
  /** Followed for too long: the verdict that ends it. */
  expired(): Verdict | undefined;
}

const stateOf = (event: RemoteEvent) =>
  event.kind === 'task' ? event.task.state : event.kind === 'status' ? event.state : undefined;

/** The event that ends the endpoint's task: a final state, or a Message. */
const ends = (event: RemoteEvent): boolean => {
  const state = stateOf(event);
  return event.kind === 'message' || (state !== undefined && isTerminal(state));
};

export function streamConversation(
  iface: EndpointInterface,
  read: RemoteCall,
  delivery: Delivery,
  following: StreamFollowing,
  clock: () => number,
): Conversation {
  const subscribe: RemoteCall = { id: read.id, method: 'SubscribeToTask', params: read.params };
  const began = clock();
  let events = 0;
  let waiting = 0;
  let ended = false;
  let refused = false;
  let mirrored = Promise.resolve();
  let failure: unknown; // a write that failed fails the attempt (retried on the schedule): the next stream begins with the task whole
  const decoder = new TextDecoder();
  const parser = createParser({
    maxBufferSize: MAX_EVENT_BYTES,
    onEvent: ({ data }) => {
      events += 1;
      const event = readEvent(iface, data);
      if (event.kind === 'refused' || event.kind === 'transient') refused = true;
      else ended ||= ends(event);
      if (waiting >= BACKLOG) return;
      waiting += 1;
      mirrored = mirrored
        .then(() => (failure === undefined ? following.mirror(event) : undefined))
        .catch((e: unknown) => void (failure ??= e))
        .finally(() => void (waiting -= 1));
    },
  });
  let fellBack = false;
  const verdict = async (status: number, body: Buffer): Promise<Verdict> => {
    await mirrored;
    if (failure !== undefined) throw failure;
    if (ended) return { kind: 'done' };
    // No stream but an answer: a fault to retry, or a refusal to stream (an error, or a task instead of events).
    const answer = events === 0 && body.length > 0 ? readAnswer(iface, status, body) : undefined;
    if (answer?.kind === 'transient') return { kind: 'retry', reason: answer.reason };
    if (answer || refused) {
      fellBack = true;
      return { kind: 'again', afterMs: following.pause() };
    }
    return following.expired() ?? { kind: 'again', afterMs: clock() - began < BRIEF_MS ? following.pause() : 0 };
  };
  return {
    request: remoteRequest(iface, subscribe),
    stream: { holdMs: HOLD_MS, onData: (chunk) => parser.feed(decoder.decode(chunk, { stream: true })) },
    verdict,
    answered: async (done: Delivery) => {
      if (fellBack && done.state === 'pending') await following.fallBack();
    },
  };
}
