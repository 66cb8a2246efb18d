/**
 * The fetch the hub's /mcp gives its tools: each request goes through the hub's own doors with
 * Fastify's inject, carrying the MCP caller's Authorization, Host and address, so auth, rate limits
 * and the view are exactly those of a call from outside, without a socket or a second listen.
 */
import type { FastifyInstance } from 'fastify';

export interface InProcessCaller {
  /** The MCP request's Host (the hub's own URLs in answers are built from it). */
  host: string;
  /** The MCP caller's address (request.ip): per-address limits count it. */
  remoteAddress: string;
}

const flatHeaders = (headers: Record<string, string | string[] | number | undefined>): Headers => {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, String(one));
  }
  return out;
};

/** A fetch that answers from `app` in-process, as `caller()` (read per request: the address may change). */
export function inProcessFetch(app: FastifyInstance, caller: () => InProcessCaller): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const { host, remoteAddress } = caller();
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const answer = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: { ...headers, host },
      ...(typeof init.body === 'string' ? { payload: init.body } : {}),
      remoteAddress,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const empty = answer.statusCode === 204 || answer.statusCode === 304 || answer.rawPayload.length === 0;
    return new Response(empty ? null : answer.rawPayload, {
      status: answer.statusCode,
      headers: flatHeaders(answer.headers),
    });
  };
}
