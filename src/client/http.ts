/**
 * The client's one way to reach the hub: a JSON request over fetch. REST calls use it as is;
 * JSON-RPC calls wrap it (`rpc`). Every failure becomes one of the errors below, which the
 * commands' error printer (errors.ts) knows how to show.
 */
import { HubAnswerError, UnreachableError, UsageError } from './errors.js';

/** Where the commands talk to and as whom. `url` always ends with '/'. */
export interface Target {
  url: string;
  token?: string | undefined;
  /**
   * How requests are sent (default: the global fetch). The hub's own /mcp passes one that goes
   * through its doors in-process (Fastify's inject), so nothing leaves the process.
   */
  fetch?: typeof fetch;
  /**
   * Ends every request made for this target, within the usual timeout: an MCP tool call's own
   * signal (the client cancelled, or the session closed), so no hub call outlives its tool call.
   */
  signal?: AbortSignal;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Overrides the target's token (registration sends the admin token, or none). */
  token?: string | undefined;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  /** Ends the request, and replaces the timeout (a wait longer than it bounds itself); default: the target's signal within the timeout. */
  signal?: AbortSignal;
  /** How long the hub has to answer (default TIMEOUT_MS); a request the hub may hold for a wait asks for `timeoutAround(wait)`. */
  timeoutMs?: number;
}

/** How long the hub has to answer a request it does not hold for a wait. */
const TIMEOUT_MS = 30_000;
/** The longest a hub holds a blocking send: MUSTER_BLOCKING_WAIT_S and MUSTER_INTENT_WAIT_S allow 0 to 300 seconds. */
export const LONGEST_HUB_WAIT_S = 300;
/** What a request the hub holds for a wait has beyond the wait: the hub's own work and the way back. */
const BEYOND_WAIT_MS = 15_000;

/**
 * The timeout of a request the hub may hold for up to `waitS` seconds: always longer than the wait,
 * so an answer that comes at the wait's end is read, not taken for an unreachable hub (and retried into a duplicate).
 */
export const timeoutAround = (waitS: number): number => Math.max(TIMEOUT_MS, waitS * 1000 + BEYOND_WAIT_MS);

/** Path segments joined, each URL-encoded: `path('api', 'tasks', id)`. */
export const path = (...segments: string[]): string => segments.map(encodeURIComponent).join('/');

/** The base URL in the form every path is joined to: absolute http(s), ending with '/'. */
export function normalizeBase(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`--url '${base}' is not a valid URL`, 'For example --url http://127.0.0.1:7420/');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url '${base}' must be an http(s) URL`);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

/** An agent's or a space's A2A base (`…/agents/dave/`) is not a hub's: the hub's base is what comes before it. */
export const hubBaseOf = (base: string): string => base.replace(/(agents|spaces)\/[^/]+\/$/, '');

/**
 * The request's signal when none is given: the timeout, ended early by the target's signal. Not
 * `AbortSignal.any`: on Node 20 it can lose its timeout once the garbage collector runs.
 */
function boundedSignal(outer: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  if (!outer) return AbortSignal.timeout(timeoutMs);
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The hub did not answer in time', 'TimeoutError')),
    timeoutMs,
  );
  timer.unref();
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener('abort', () => (clearTimeout(timer), controller.abort(outer.reason)), { once: true });
  return controller.signal;
}

/** The base as shown to people: no user info, in case the URL carries any. */
const shownBase = (base: string): string => {
  const url = new URL(base);
  url.username = '';
  url.password = '';
  return url.href;
};

function reason(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause as
    { code?: unknown; message?: unknown; errors?: { code?: unknown }[] } | undefined;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (typeof code === 'string') return code;
  if (typeof cause?.message === 'string' && cause.message !== '') return cause.message;
  return (error as Error).message;
}

/**
 * Sends one request and answers the response, whatever its status; UnreachableError when the
 * hub cannot be reached in time. The token sent is the target's unless `options.token` is given.
 */
export async function send(
  target: Target,
  path: string,
  options: RequestOptions = {},
): Promise<{ response: Response; sentToken: boolean }> {
  const url = new URL(path, target.url);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const token = 'token' in options ? options.token : target.token;
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...options.headers,
  };
  try {
    const response = await (target.fetch ?? fetch)(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      signal: options.signal ?? boundedSignal(target.signal, timeoutMs),
    });
    return { response, sentToken: token !== undefined && token !== '' };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      throw new UnreachableError(`the hub at ${shownBase(target.url)} did not answer within ${timeoutMs / 1000}s`);
    }
    throw new UnreachableError(`cannot reach the hub at ${shownBase(target.url)}: ${reason(error)}`);
  }
}

/** A response's JSON body; HubAnswerError for an error answer, NOT_A_HUB for a body that is not JSON. */
export async function readAnswer(target: Target, response: Response, sentToken: boolean): Promise<unknown> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new UnreachableError(
      `${shownBase(target.url)} answered HTTP ${response.status} with a body that is not JSON; is it a Muster hub?`,
      'NOT_A_HUB',
    );
  }
  const isError = !response.ok || (body !== null && typeof body === 'object' && 'error' in body);
  if (isError) throw new HubAnswerError(response.status, body, sentToken);
  return body;
}

/** Sends one JSON request and answers the parsed JSON body (see send and readAnswer for the failures). */
export async function request(target: Target, path: string, options: RequestOptions = {}): Promise<unknown> {
  const { response, sentToken } = await send(target, path, options);
  return readAnswer(target, response, sentToken);
}

/** One A2A JSON-RPC 1.0 call at `path` (an A2A base), as `options` say (the token, the timeout); answers the `result` member. */
export async function rpc(
  target: Target,
  path: string,
  method: string,
  params: unknown,
  id: string | number = 1,
  options: Pick<RequestOptions, 'token' | 'timeoutMs'> = {},
): Promise<unknown> {
  const body = await request(target, path, {
    ...options,
    body: { jsonrpc: '2.0', id, method, params },
    headers: { 'a2a-version': '1.0' },
  });
  return (body as { result?: unknown } | undefined)?.result;
}
