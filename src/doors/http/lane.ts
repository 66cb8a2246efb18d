/**
 * The JSON-RPC lane. Fast path: the A2A door's JSON-RPC calls are answered from node's request,
 * without fastify's request and reply objects, routing and hooks (about 6 % of a GetTask's CPU).
 * It takes only the plain case: a POST to a registered endpoint's exact path, with no query
 * string, a JSON Content-Type, a Content-Length within the body limit, no proxy header, and the
 * hub not stopping. For that case it runs the steps fastify's hooks run, in their order and with
 * the same functions (LaneSteps, from app.ts): the tracker, the guard, the caller's token, the body
 * parser, the route, the same error answers, and the count of a refused token. Every other
 * request goes to fastify, where the same routes answer it as before.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Caller } from '../../identity/caller.js';
import type { HttpReply, HttpRequest } from './exchange.js';
import { TurnEnds, type Ending, type Turn } from './turn-ends.js';

/** The shared steps of a request, as app.ts runs them for fastify's routes. */
export interface LaneSteps {
  readonly bodyLimit: number;
  stopping(): boolean;
  requestId(raw: IncomingMessage): string;
  track(request: HttpRequest, reply: { raw: ServerResponse }): void;
  guard(request: HttpRequest): void;
  /** Authenticates the request's token (a refusal throws) and labels the request with its caller. */
  caller(request: HttpRequest): Promise<void>;
  parse(text: string): unknown;
  errorAnswer(error: unknown, request: HttpRequest): { status: number; headers: OutgoingHttpHeaders; body: unknown };
  /** Before a 401 goes out: counts the refused token against the client's address. */
  refused(request: HttpRequest): Promise<void>;
  logError(error: unknown, request: HttpRequest): void;
}

export type LaneRoute = (request: HttpRequest, reply: HttpReply) => Promise<unknown>;

interface Registered {
  readonly parts: readonly string[];
  readonly route: LaneRoute;
  readonly routeOptions: HttpRequest['routeOptions'];
}

/** The Content-Types the lane takes as they are usually spelled; any other spelling goes to fastify. */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/a2a+json']);
/** A path parameter the lane takes: fastify decodes and limits others (at 100 characters) its own way. */
const PARAM = /^[A-Za-z0-9._-]{1,100}$/;
const LENGTH = /^\d{1,9}$/;

class LaneRequest implements HttpRequest {
  readonly method = 'POST';
  readonly query = undefined;
  readonly headers: IncomingHttpHeaders;
  readonly url: string;
  body: unknown = undefined;
  callerLabel = 'anonymous';
  claimedCaller: Promise<Caller> | null = null;
  constructor(
    readonly raw: IncomingMessage,
    readonly id: string,
    readonly params: Record<string, string>,
    readonly routeOptions: HttpRequest['routeOptions'],
  ) {
    this.headers = raw.headers;
    this.url = raw.url!;
  }
  /** The socket's address: the lane takes no request that names a proxy's client. */
  get ip(): string {
    return this.raw.socket.remoteAddress ?? '';
  }
}

class LaneReply implements HttpReply, Ending {
  hijacked = false;
  private text = '';
  constructor(
    readonly raw: ServerResponse,
    private readonly request: HttpRequest,
    private readonly steps: LaneSteps,
    private readonly ends: TurnEnds,
    private readonly turn: Turn,
  ) {}
  hijack(): void {
    this.hijacked = true;
  }
  async send(status: number, headers: OutgoingHttpHeaders, body: unknown): Promise<void> {
    if (status === 401) await this.steps.refused(this.request);
    if (this.raw.destroyed) return;
    if (body === undefined) this.raw.writeHead(status, headers);
    else {
      this.text = JSON.stringify(body);
      const length = Buffer.byteLength(this.text);
      this.raw.writeHead(status, {
        ...headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': length,
      });
    }
    this.ends.end(this, this.turn);
  }
  /** The answer's body goes out with the others of its turn (turn-ends.ts). */
  end(): void {
    try {
      this.raw.end(this.text);
    } catch (error) {
      this.steps.logError(error, this.request);
    }
  }
}

/** The body as text, decoded once at its end: no string decoder per request (a body is nearly always one chunk). */
const bodyText = (raw: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const add = (chunk: Buffer) => chunks.push(chunk);
    raw.on('data', add);
    raw.once('end', () => {
      raw.off('data', add); // a stream's request lives as long as the stream: its reader, and the chunks, need not (0.2 KB)
      resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
    });
    raw.once('error', reject);
  });

export class JsonRpcLane {
  private readonly routes: Registered[] = [];
  private readonly ends = new TurnEnds();

  constructor(private readonly steps: LaneSteps) {}

  /** Takes the plain calls to `pattern` (fastify's syntax: `/agents/:handle/`), answered by `route`. */
  post(pattern: string, route: LaneRoute): void {
    this.routes.push({ parts: pattern.split('/'), route, routeOptions: { url: pattern, config: { door: 'jsonrpc' } } });
  }

  /** Answers `raw` when it is a plain call to a registered endpoint; false leaves it to fastify. */
  take(raw: IncomingMessage, res: ServerResponse): boolean {
    if (raw.method !== 'POST' || this.steps.stopping()) return false;
    const headers = raw.headers;
    const length = headers['content-length'];
    if (
      length === undefined ||
      !LENGTH.test(length) ||
      Number(length) > this.steps.bodyLimit ||
      headers['transfer-encoding'] !== undefined ||
      headers['x-forwarded-for'] !== undefined ||
      !JSON_TYPES.has(headers['content-type']?.toLowerCase() ?? '')
    )
      return false;
    const found = this.find(raw.url!);
    if (!found) return false;
    const turn = this.ends.arrived();
    const request = new LaneRequest(raw, this.steps.requestId(raw), found.params, found.registered.routeOptions);
    this.answer(request, new LaneReply(res, request, this.steps, this.ends, turn), found.registered.route).catch(
      (e: unknown) => this.steps.logError(e, request),
    );
    return true;
  }

  private find(url: string): { registered: Registered; params: Record<string, string> } | undefined {
    if (url.includes('?') || url.includes('%')) return undefined;
    const parts = url.split('/');
    for (const registered of this.routes) {
      if (registered.parts.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matches = registered.parts.every((part, i) => {
        if (!part.startsWith(':')) return part === parts[i];
        if (!PARAM.test(parts[i]!)) return false;
        params[part.slice(1)] = parts[i]!;
        return true;
      });
      if (matches) return { registered, params };
    }
    return undefined;
  }

  /** fastify's order: tracker, guard, token (onRequest), body, route; any failure as its error answer. */
  private async answer(request: LaneRequest, reply: LaneReply, route: LaneRoute): Promise<void> {
    const steps = this.steps;
    steps.track(request, reply);
    try {
      steps.guard(request);
      if (request.headers.authorization !== undefined) await steps.caller(request);
      request.body = steps.parse(await bodyText(request.raw));
      await route(request, reply);
    } catch (error) {
      if (reply.hijacked || reply.raw.headersSent) return steps.logError(error, request);
      const { status, headers, body } = steps.errorAnswer(error, request);
      await reply.send(status, headers, body);
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The JSON-RPC lane of the app's server: a door registers its endpoints here too (rpc-route.ts). */
    jsonRpcLane: JsonRpcLane;
  }
}
