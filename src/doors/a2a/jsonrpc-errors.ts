/**
 * The JSON-RPC door's error table: each hub error's JSON-RPC code, and the HTTP status of the
 * answer that carries it (JSON-RPC errors ride on 200, except where HTTP itself must say it:
 * 401, 403, 413, 415, 429, 5xx). A code added to the catalogue fails to compile until it is here.
 */
import type { ErrorCode } from '../../errors/catalogue.js';

export interface JsonRpcMapping {
  /** The JSON-RPC error code. */
  code: number;
  /** The HTTP status of the answer. */
  http: number;
}

export const JSONRPC_ERRORS: Record<ErrorCode, JsonRpcMapping> = {
  PARSE_ERROR: { code: -32700, http: 200 },
  INVALID_REQUEST: { code: -32600, http: 200 },
  METHOD_NOT_FOUND: { code: -32601, http: 200 },
  INVALID_PARAMS: { code: -32602, http: 200 },
  INTERNAL: { code: -32603, http: 500 },
  UNAVAILABLE: { code: -32030, http: 503 },
  PAYLOAD_TOO_LARGE: { code: -32600, http: 413 },
  REQUEST_TIMEOUT: { code: -32600, http: 408 },
  HEADERS_TOO_LARGE: { code: -32600, http: 431 },
  ROUTE_NOT_FOUND: { code: -32601, http: 404 },
  TASK_NOT_FOUND: { code: -32001, http: 200 },
  TASK_NOT_CANCELABLE: { code: -32002, http: 200 },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { code: -32003, http: 200 },
  UNSUPPORTED_OPERATION: { code: -32004, http: 200 },
  CONTENT_TYPE_NOT_SUPPORTED: { code: -32005, http: 415 },
  INVALID_AGENT_RESPONSE: { code: -32006, http: 200 },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { code: -32007, http: 200 },
  EXTENSION_SUPPORT_REQUIRED: { code: -32008, http: 200 },
  VERSION_NOT_SUPPORTED: { code: -32009, http: 200 },
  UNAUTHENTICATED: { code: -32010, http: 401 },
  FORBIDDEN: { code: -32011, http: 403 },
  AGENT_NOT_FOUND: { code: -32012, http: 404 },
  NOT_FOUND: { code: -32012, http: 200 },
  CONFLICT: { code: -32013, http: 200 },
  HANDLE_TAKEN: { code: -32013, http: 200 },
  HANDLE_RESERVED: { code: -32602, http: 200 },
  IDEMPOTENCY_KEY_REUSED: { code: -32602, http: 200 },
  RATE_LIMITED: { code: -32029, http: 429 },
  AGENT_PAUSED: { code: -32013, http: 200 },
  ALREADY_CONTRIBUTED: { code: -32013, http: 200 },
  TASK_FULL: { code: -32013, http: 200 },
  APPROVAL_MISMATCH: { code: -32602, http: 200 },
  PRIVATE_CONTENT: { code: -32602, http: 200 },
  SPACE_NOT_FOUND: { code: -32012, http: 404 },
  NAME_TAKEN: { code: -32013, http: 200 },
  LEASE_HELD: { code: -32013, http: 200 },
  LEASE_NOT_HELD: { code: -32013, http: 200 },
  BOARD_NOT_FOUND: { code: -32012, http: 200 },
  BOARD_FULL: { code: -32013, http: 200 },
  BOARD_LIMIT: { code: -32013, http: 200 },
};
