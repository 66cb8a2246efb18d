/**
 * Wire errors of the HTTP doors: any thrown value as a HubError, JSON-RPC error objects (with
 * google.rpc.ErrorInfo in `data`, numbers from the JSON-RPC table) and REST API error bodies
 * (statuses from the REST API's table). The HTTP+JSON binding shapes its own (a2a/rest-binding-errors.ts).
 */
import { errorDomain } from '../../errors/catalogue.js';
import { JSONRPC_ERRORS } from '../a2a/jsonrpc-errors.js';
export { restErrorBody, restStatus } from '../../errors/rest-status.js';
import { HubError, isHubError } from '../../errors/hub-error.js';
import { StoreConflict, StoreUnavailable } from '../../store/errors.js';
import type { DoorKind } from './exchange.js';

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data: Record<string, unknown>[];
}

const FASTIFY_CODES: Record<string, () => HubError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new HubError('PAYLOAD_TOO_LARGE', undefined, { hint: 'Send at most 1 MiB; put large content behind a url part' }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new HubError('CONTENT_TYPE_NOT_SUPPORTED', 'The body must be JSON', {
      hint: 'Send Content-Type: application/json',
    }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new HubError('INVALID_REQUEST', 'Content-Length does not match the body'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new HubError('PARSE_ERROR', 'The JSON body is empty'),
};

/** A body that is not JSON, with its door's own advice: a REST caller never hears of JSON-RPC. */
export function notJson(door: DoorKind | undefined, cause: unknown): HubError {
  // Only the position is kept: the parser's message can quote the body, which may be private.
  const at = /position (\d+)/.exec(cause instanceof Error ? cause.message : '')?.[1];
  return new HubError(
    'PARSE_ERROR',
    `The body is not valid JSON${at === undefined ? '' : ` (it breaks at character ${at})`}`,
    {
      hint:
        door === 'jsonrpc'
          ? 'Send one JSON-RPC 2.0 request object, such as {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "…"}}'
          : 'Send one JSON object (check the quotes, commas and brackets), with Content-Type: application/json',
    },
  );
}

/** Where a path that matches no route should have gone: the REST API's routes, or the A2A bases. */
export function noRoute(method: string, path: string): HubError {
  const hint = path.startsWith('/api/')
    ? 'REST routes: /api/agents, /api/agents/{handle}, /api/me, /api/inbox, /api/sent, /api/tasks/{id} (docs/rest-api.md)'
    : 'A2A bases take JSON-RPC POSTs at / and /agents/{handle}/ (cards at .well-known/agent-card.json); the REST API is under /api/';
  return new HubError('ROUTE_NOT_FOUND', `No route ${method} ${path}`, { hint });
}

/** Any thrown value as a HubError; unknown failures become INTERNAL (the cause goes to the log, not the caller). */
export function asHubError(error: unknown): HubError {
  if (isHubError(error)) return error;
  const code = (error as { code?: string } | null)?.code;
  const known = code ? FASTIFY_CODES[code] : undefined;
  if (known) return known();
  // The database is down or unreachable: nothing the caller did, and nothing was written.
  if (error instanceof StoreUnavailable)
    return new HubError('UNAVAILABLE', undefined, { hint: 'Retry in a few seconds', meta: { retryAfterSeconds: '5' } });
  // The database kept refusing a write for conflicting ones (deadlocks, serialization) past its retries.
  if (error instanceof StoreConflict)
    return new HubError('CONFLICT', 'The database was busy with conflicting changes; nothing was done', {
      hint: 'Retry the request',
    });
  return new HubError('INTERNAL', 'Internal error; the hub logged the cause', {
    hint: 'Retry later; report it if it persists',
  });
}

export function jsonRpcError(error: HubError): JsonRpcErrorObject {
  const metadata: Record<string, string> = Object.assign({}, error.meta, error.hint ? { hint: error.hint } : {});
  const data: Record<string, unknown>[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.code,
      domain: errorDomain(error.code),
      metadata,
    },
  ];
  if (error.fields.length > 0) {
    data.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: error.fields });
  }
  return { code: JSONRPC_ERRORS[error.code].code, message: error.message, data };
}

export const jsonRpcStatus = (error: HubError): number => JSONRPC_ERRORS[error.code].http;

/** Headers an error answer carries on any door. */
export function errorHeaders(error: HubError): Record<string, string> {
  if (error.code === 'UNAUTHENTICATED') return { 'www-authenticate': 'Bearer realm="muster"' };
  if ((error.code === 'RATE_LIMITED' || error.code === 'UNAVAILABLE') && error.meta['retryAfterSeconds'])
    return { 'retry-after': error.meta['retryAfterSeconds'] };
  return {};
}
