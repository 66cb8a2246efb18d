import { TargetRefused } from './errors.js';
import { exchange, type Bounds, type SendResult } from './exchange.js';
import { parseTarget, type TargetPolicy } from './target.js';

export { checkTarget, type TargetPolicy } from './target.js';
export { DeliveryFailed, TargetRefused, type FailureReason, type RefusalReason } from './errors.js';

export interface OutgoingRequest {
  url: string;
  /** Defaults to POST when there is a body, GET otherwise. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface SendPolicy extends TargetPolicy {
  /** Read an event stream as it comes (see Bounds.stream); redirects are not followed then. */
  stream?: Bounds['stream'];
  /** For the whole exchange, redirects and body included. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
}

export const SEND_DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 256 * 1024, maxRedirects: 3 } as const;

/** Headers the client owns: framing and Host are set from the request, and cookies are never sent. */
const OWNED_HEADERS = new Set(['host', 'cookie', 'content-length', 'transfer-encoding', 'connection']);
/** Headers that describe a body, dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one HTTP request for Muster (a push, a forward, a challenge fetch) under the outbound
 * policy: http(s) rules and IP literals are checked first, every resolved address is checked
 * at connect time, redirects are followed only within the same origin, and the exchange is
 * bounded in time and in response size. Throws TargetRefused or DeliveryFailed, whose messages
 * name a URL only by its origin: they are stored and logged, and a path or query may hold a secret.
 */
export async function safeSend(request: OutgoingRequest, policy: SendPolicy): Promise<SendResult> {
  const timeoutMs = policy.timeoutMs ?? SEND_DEFAULTS.timeoutMs;
  const maxBytes = policy.maxResponseBytes ?? SEND_DEFAULTS.maxResponseBytes;
  const maxRedirects = policy.maxRedirects ?? SEND_DEFAULTS.maxRedirects;
  const deadline = Date.now() + timeoutMs;

  let url = parseTarget(request.url, policy);
  let method = (request.method ?? (request.body === undefined ? 'GET' : 'POST')).toUpperCase();
  let body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers = ownHeaders(request.headers ?? {});

  for (let redirects = 0; ; redirects += 1) {
    const response = await exchange({ url, method, headers, body }, policy, {
      deadline,
      timeoutMs,
      maxBytes,
      ...(policy.stream ? { stream: policy.stream } : {}),
    });
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.status) || location === undefined || policy.stream) return response;
    if (redirects >= maxRedirects) {
      throw new TargetRefused(
        'redirect',
        `${url.origin} redirected more than ${maxRedirects} times; send the final URL instead`,
      );
    }
    url = sameOriginRedirect(url, location, policy);
    // As fetch does: 303, and 301/302 after a POST, continue as a GET without the body.
    if (method !== 'HEAD' && (response.status === 303 || (method === 'POST' && response.status <= 302))) {
      method = 'GET';
      body = undefined;
      for (const name of BODY_HEADERS) delete headers[name];
    }
  }
}

function ownHeaders(given: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!OWNED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** Same scheme, host and port only: a redirect must not move a signed, authorised request somewhere else. */
function sameOriginRedirect(from: URL, location: string, policy: TargetPolicy): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new TargetRefused('redirect', `${from.origin} redirected to an invalid location; send the final URL instead`);
  }
  if (next.origin !== from.origin) {
    throw new TargetRefused(
      'redirect',
      `${from.origin} redirected to another origin (${next.origin}); Muster follows redirects only within ${from.origin}. Send the final URL instead`,
    );
  }
  return parseTarget(next.href, policy);
}
