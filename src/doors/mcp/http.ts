/**
 * `/mcp` on the hub: the MCP Streamable HTTP transport (POST messages, GET the server's stream,
 * DELETE the session), stateful, with the caller's bearer token. The app's hooks have already
 * checked Host, a write's Origin and any token (a bad one is the hub's usual 401); here a GET's
 * Origin is checked too, since a browser page may open a stream. Each session's tools reach the
 * hub in-process (in-process.ts), as the session's token, through the same doors as anyone.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HubError } from '../../errors/hub-error.js';
import { bearerToken, hashToken } from '../../identity/tokens.js';
import { foreignOrigin } from '../http/guard.js';
import { inProcessFetch } from './in-process.js';
import { buildMcpServer } from '../../mcp/server.js';
import type { ToolSource } from '../../mcp/tool.js';
import { McpSessions, type McpSession, type SessionLimits } from './sessions.js';

export interface McpDoorOptions {
  publicUrl: URL | undefined;
  sessions: SessionLimits;
  /** The kinds whose tools the door serves after its own (src/kinds/client.ts), handed by the composition root. */
  kinds: readonly ToolSource[];
}

const SESSION_HEADER = 'mcp-session-id';

/** The Fastify request as the SDK's web-standard transport reads it (its body is already parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`http://${request.headers.host ?? 'localhost'}${request.url}`, {
    method: request.method,
    headers,
  });
}

/** Sends the transport's answer; a stream (SSE) is piped, and ends when the client goes. */
function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: Response, onEnd: () => void): FastifyReply {
  reply.code(answer.status);
  answer.headers.forEach((value, name) => void reply.header(name, value));
  if (!answer.body) {
    onEnd();
    return reply.send();
  }
  const body = Readable.fromWeb(answer.body as NodeReadableStream);
  const end = () => {
    body.destroy();
    onEnd();
  };
  request.raw.once('close', end);
  body.once('close', end);
  return reply.send(body);
}

const sessionNotFound = (id: string) =>
  new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32001, message: `Session ${id} not found on this node: initialize a new session` },
      id: null,
    }),
    {
      status: 404,
      headers: { 'content-type': 'application/json' },
    },
  );

const isInitialize = (body: unknown): boolean => {
  const one = Array.isArray(body) ? body : [body];
  return one.some((m) => m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'initialize');
};

export function mcpRoutes(app: FastifyInstance, options: McpDoorOptions): void {
  const sessions = new McpSessions(options.sessions);
  app.addHook('preClose', () => sessions.closeAll());

  /** The session this request belongs to: its own, or a new one for an `initialize`. */
  async function sessionOf(request: FastifyRequest, owner: string): Promise<McpSession | Response> {
    const id = request.headers[SESSION_HEADER];
    const caller = { host: request.headers.host ?? 'localhost', remoteAddress: request.ip };
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (!session) return sessionNotFound(id);
      if (session.owner !== owner) {
        throw new HubError('FORBIDDEN', 'This MCP session was opened with another token', {
          hint: 'Send the token the session was opened with, or initialize a new session',
        });
      }
      return Object.assign(session, caller);
    }
    if (request.method !== 'POST' || !isInitialize(request.body)) {
      throw new HubError(
        'INVALID_REQUEST',
        `A request without an Mcp-Session-Id header must be a POST of 'initialize'`,
        {
          hint: 'Initialize first, then send the Mcp-Session-Id the answer carries on every request',
        },
      );
    }
    return sessions.start(owner, caller, (session) => {
      const token = request.headers.authorization && bearerToken(request.headers.authorization);
      const fetch = inProcessFetch(app, () => ({ host: session().host, remoteAddress: session().remoteAddress }));
      return buildMcpServer({ url: `http://${caller.host}/`, token, fetch }, options.kinds);
    });
  }

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    config: { door: 'rest' },
    handler: async (request, reply) => {
      if (request.method === 'GET' && foreignOrigin(request, options.publicUrl)) {
        throw new HubError('FORBIDDEN', `Streams for origin '${request.headers.origin}' are refused`, {
          hint: 'Connect from a local MCP client, not from a web page of another site',
        });
      }
      const token = request.headers.authorization && bearerToken(request.headers.authorization);
      const session = await sessionOf(request, token ? hashToken(token) : '');
      if (session instanceof Response) return sendAnswer(request, reply, session, () => undefined);
      const streaming = request.method === 'GET';
      const counter = streaming ? 'streams' : 'calls';
      session[counter] += 1;
      const answer = await session.transport.handleRequest(
        webRequest(request),
        request.method === 'POST' ? { parsedBody: request.body } : {},
      );
      // An `initialize` the transport refused leaves a session that was never named: nothing holds it.
      if (session.id === '') void session.server.close();
      let ended = false;
      return sendAnswer(request, reply, answer, () => {
        if (ended) return;
        ended = true;
        session[counter] -= 1;
        session.lastUsed = Date.now();
      });
    },
  });
}
