/**
 * A seed dialect: one seed system's own contract (its routes, shapes, error codes), spoken at a
 * base of its own so that a client written for that system works against Muster with only its
 * base URL and token changed. A dialect is a door: it translates, then calls the hub's operations
 * and reads through the same view and kinds as every other door; it never reaches the store.
 * A JSON-RPC dialect serves its endpoint with the A2A door's route (doors/a2a/rpc-route.ts),
 * handing it its own methods and error table (a Dispatch).
 */
import type { FastifyInstance } from 'fastify';
import type { HttpRequest } from '../doors/http/exchange.js';
import type { Hub } from '../hub/hub.js';
import type { Signer } from '../delivery/signing.js';
import type { OpenStreams } from '../doors/http/open-streams.js';
import type { StreamSettings } from '../config/index.js';
import type { Bindings } from '../doors/a2a/card.js';

export interface DialectOptions {
  /** The hub's public URL when configured (else each request's own origin). */
  publicUrl: URL | undefined;
  /** The hub's signing keys, for a dialect that serves a signed card under Muster's own key. */
  signer: Signer;
  /** Every stream of this process (a dialect that streams takes its slots here). */
  open: OpenStreams;
  streams: StreamSettings;
  /** The A2A bindings this node serves besides JSON-RPC (the gRPC port, when on). */
  bindings: Bindings;
  /** Logs an unexpected failure (a bug, never a client's mistake) with its request. */
  logError: (error: unknown, request: HttpRequest) => void;
}

export interface Dialect {
  /** The seed system whose clients it serves, as the docs name it. */
  readonly seed: string;
  /** Where it answers: a fastify prefix (`/cairn`, `/api/colonies/:space`), without the trailing slash. */
  readonly prefix: string;
  /**
   * Mounts its routes in a scope of its own under the prefix, with its own error handler and
   * not-found answer (its error table): native bases are untouched.
   */
  readonly routes: (scope: FastifyInstance, hub: Hub, options: DialectOptions) => void | Promise<void>;
}
