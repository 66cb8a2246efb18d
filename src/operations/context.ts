/**
 * What a door hands an operation besides the typed request: the caller as the hub knows it (an
 * Actor: caller and base) and what only the transport knows (the call's end, a resume point,
 * the caller's stream slots, the base's public card). Nothing here knows HTTP or gRPC.
 */
import type { Subscription } from '../hub/following.js';

/** An Agent Card in ProtoJSON, as the cards module builds it. */
export interface AgentCardJson {
  capabilities: { extensions?: unknown[] };
}

export interface CallContext {
  /** The hub's base URL as this caller reaches it (`http://host:port/`), for URLs in answers. */
  base: string;
  /** Fires when the caller is gone (the connection closed, the call was cancelled). */
  signal: AbortSignal;
  /** The last event sequence number the caller saw, to resume a subscription after it. */
  lastEventId?: number;
  /** Takes one of the caller's stream slots (refusing when none is left); returns its release. */
  reserveStream: () => () => void;
  /** The public card of the base the call addresses, as its door serves it. */
  publicCard?: () => Promise<AgentCardJson>;
  /** A send's own idempotency key, when its door has one (TaskWrites.send's `key`). */
  operationKey?: string;
}

/** An operation's answer that is a stream of 1.0 StreamResponse events: the snapshot first, then the log. */
export interface TaskStream {
  subscription: Subscription;
  /** Gives the caller's stream slot back; call it once the stream has ended. */
  release: () => void;
}
