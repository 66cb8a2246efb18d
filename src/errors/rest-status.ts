/**
 * The REST API's error table (/api/...): each hub error's HTTP status, and a hub error's REST
 * body. The REST door answers with them and the client reads them (a check the client runs
 * locally is shown as the hub would answer it). A code added to the catalogue fails to compile
 * until it is here.
 */
import type { ErrorCode } from './catalogue.js';
import type { HubError } from './hub-error.js';

export const REST_API_STATUS: Record<ErrorCode, number> = {
  PARSE_ERROR: 400,
  INVALID_REQUEST: 400,
  METHOD_NOT_FOUND: 404,
  INVALID_PARAMS: 400,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  ROUTE_NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  TASK_NOT_CANCELABLE: 409,
  PUSH_NOTIFICATION_NOT_SUPPORTED: 400,
  UNSUPPORTED_OPERATION: 400,
  CONTENT_TYPE_NOT_SUPPORTED: 415,
  INVALID_AGENT_RESPONSE: 502,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 400,
  EXTENSION_SUPPORT_REQUIRED: 400,
  VERSION_NOT_SUPPORTED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  AGENT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  CONFLICT: 409,
  HANDLE_TAKEN: 409,
  HANDLE_RESERVED: 400,
  IDEMPOTENCY_KEY_REUSED: 409,
  RATE_LIMITED: 429,
  AGENT_PAUSED: 409,
  ALREADY_CONTRIBUTED: 409,
  TASK_FULL: 409,
  APPROVAL_MISMATCH: 400,
  PRIVATE_CONTENT: 400,
  SPACE_NOT_FOUND: 404,
  NAME_TAKEN: 409,
  LEASE_HELD: 409,
  LEASE_NOT_HELD: 409,
  BOARD_NOT_FOUND: 404,
  BOARD_FULL: 409,
  BOARD_LIMIT: 409,
};

/** A hub error as the REST API's error body. */
export function restErrorBody(error: HubError): { error: Record<string, unknown> } {
  const hint = error.restHint ?? error.hint;
  return {
    error: {
      code: error.code,
      status: REST_API_STATUS[error.code],
      message: error.message,
      ...(hint ? { hint } : {}),
      ...(error.fields.length > 0 ? { fields: error.fields } : {}),
      ...error.meta,
    },
  };
}

export const restStatus = (error: HubError): number => REST_API_STATUS[error.code];
