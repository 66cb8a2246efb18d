/**
 * The HTTP+JSON binding's error table: each hub error's HTTP status and its google.rpc.Status
 * code name, and the google.rpc.Status body the binding answers (ErrorInfo first, then
 * BadRequest when fields were refused). A code added to the catalogue fails to compile until it is here.
 */
import { errorDomain, type ErrorCode } from '../../errors/catalogue.js';
import type { HubError } from '../../errors/hub-error.js';

/** google.rpc.Code names, as google.rpc.Status carries them in JSON. */
export type StatusName =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'OUT_OF_RANGE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ABORTED'
  | 'ALREADY_EXISTS'
  | 'RESOURCE_EXHAUSTED'
  | 'CANCELLED'
  | 'INTERNAL'
  | 'UNIMPLEMENTED'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED';

export const REST_BINDING_ERRORS: Record<ErrorCode, { http: number; status: StatusName }> = {
  PARSE_ERROR: { http: 400, status: 'INVALID_ARGUMENT' },
  INVALID_REQUEST: { http: 400, status: 'INVALID_ARGUMENT' },
  METHOD_NOT_FOUND: { http: 404, status: 'UNIMPLEMENTED' },
  INVALID_PARAMS: { http: 400, status: 'INVALID_ARGUMENT' },
  INTERNAL: { http: 500, status: 'INTERNAL' },
  UNAVAILABLE: { http: 503, status: 'UNAVAILABLE' },
  PAYLOAD_TOO_LARGE: { http: 413, status: 'RESOURCE_EXHAUSTED' },
  REQUEST_TIMEOUT: { http: 408, status: 'DEADLINE_EXCEEDED' },
  HEADERS_TOO_LARGE: { http: 431, status: 'RESOURCE_EXHAUSTED' },
  ROUTE_NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  TASK_NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  TASK_NOT_CANCELABLE: { http: 409, status: 'FAILED_PRECONDITION' },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { http: 400, status: 'FAILED_PRECONDITION' },
  UNSUPPORTED_OPERATION: { http: 400, status: 'FAILED_PRECONDITION' },
  CONTENT_TYPE_NOT_SUPPORTED: { http: 415, status: 'INVALID_ARGUMENT' },
  INVALID_AGENT_RESPONSE: { http: 502, status: 'INTERNAL' },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { http: 400, status: 'FAILED_PRECONDITION' },
  EXTENSION_SUPPORT_REQUIRED: { http: 400, status: 'FAILED_PRECONDITION' },
  VERSION_NOT_SUPPORTED: { http: 400, status: 'FAILED_PRECONDITION' },
  UNAUTHENTICATED: { http: 401, status: 'UNAUTHENTICATED' },
  FORBIDDEN: { http: 403, status: 'PERMISSION_DENIED' },
  AGENT_NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  CONFLICT: { http: 409, status: 'ABORTED' },
  HANDLE_TAKEN: { http: 409, status: 'ALREADY_EXISTS' },
  HANDLE_RESERVED: { http: 400, status: 'INVALID_ARGUMENT' },
  IDEMPOTENCY_KEY_REUSED: { http: 409, status: 'FAILED_PRECONDITION' },
  RATE_LIMITED: { http: 429, status: 'RESOURCE_EXHAUSTED' },
  AGENT_PAUSED: { http: 409, status: 'FAILED_PRECONDITION' },
  ALREADY_CONTRIBUTED: { http: 409, status: 'ALREADY_EXISTS' },
  TASK_FULL: { http: 409, status: 'FAILED_PRECONDITION' },
  APPROVAL_MISMATCH: { http: 400, status: 'INVALID_ARGUMENT' },
  PRIVATE_CONTENT: { http: 400, status: 'INVALID_ARGUMENT' },
  SPACE_NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  NAME_TAKEN: { http: 409, status: 'ALREADY_EXISTS' },
  LEASE_HELD: { http: 409, status: 'FAILED_PRECONDITION' },
  LEASE_NOT_HELD: { http: 409, status: 'FAILED_PRECONDITION' },
  BOARD_NOT_FOUND: { http: 404, status: 'NOT_FOUND' },
  BOARD_FULL: { http: 409, status: 'RESOURCE_EXHAUSTED' },
  BOARD_LIMIT: { http: 409, status: 'RESOURCE_EXHAUSTED' },
};

/** The google.rpc.Status JSON of a refusal: `{"error": {"code", "status", "message", "details"}}`. */
export function statusBody(error: HubError): {
  error: { code: number; status: StatusName; message: string; details: Record<string, unknown>[] };
} {
  const mapping = REST_BINDING_ERRORS[error.code];
  const metadata: Record<string, string> = Object.assign({}, error.meta, error.hint ? { hint: error.hint } : {});
  const details: Record<string, unknown>[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.code,
      domain: errorDomain(error.code),
      metadata,
    },
  ];
  if (error.fields.length > 0)
    details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: error.fields });
  return { error: { code: mapping.http, status: mapping.status, message: error.message, details } };
}
