/**
 * The one catalogue of hub errors. Every refusal the hub makes is one of these codes;
 * each door maps it through this table (JSON-RPC code, HTTP status) and nothing else.
 * Codes are stable: never rename or reuse one. docs/a2a-surface.md lists them all
 * (a test checks that).
 */
export interface ErrorSpec {
  /** JSON-RPC error code. */
  readonly rpc: number;
  /** HTTP status on REST doors. */
  readonly http: number;
  /** HTTP status when the error answers a JSON-RPC call (JSON-RPC errors are normally 200). */
  readonly rpcHttp: number;
  /** Default message. */
  readonly message: string;
  /** The ErrorInfo domain: the A2A specification's own errors, or Muster's. */
  readonly domain: 'a2a-protocol.org' | 'muster.hub';
}

const spec = (rpc: number, http: number, message: string, rpcHttp = 200): ErrorSpec => ({ rpc, http, rpcHttp, message, domain: 'a2a-protocol.org' });
const own = (rpc: number, http: number, message: string, rpcHttp = 200): ErrorSpec => ({ ...spec(rpc, http, message, rpcHttp), domain: 'muster.hub' });

export const CATALOGUE = {
  // JSON-RPC envelope (JSON-RPC 2.0)
  // (JSON-RPC's own codes: their ErrorInfo reasons are Muster's, so is their domain)
  PARSE_ERROR: own(-32700, 400, 'Invalid JSON payload'),
  INVALID_REQUEST: own(-32600, 400, 'Request payload validation error'),
  METHOD_NOT_FOUND: own(-32601, 404, 'Method not found'),
  INVALID_PARAMS: own(-32602, 400, 'Invalid parameters'),
  INTERNAL: own(-32603, 500, 'Internal error', 500),
  UNAVAILABLE: own(-32030, 503, 'The hub cannot reach its database right now', 503),
  // HTTP-level refusals (answered on every door with a JSON body)
  PAYLOAD_TOO_LARGE: own(-32600, 413, 'Request body is larger than 1 MiB', 413),
  ROUTE_NOT_FOUND: own(-32601, 404, 'No such route', 404),
  REQUEST_TIMEOUT: own(-32600, 408, 'The request did not arrive in time', 408),
  HEADERS_TOO_LARGE: own(-32600, 431, 'The request header fields are too large', 431),
  // A2A 1.0 errors
  TASK_NOT_FOUND: spec(-32001, 404, 'Task not found'),
  TASK_NOT_CANCELABLE: spec(-32002, 409, 'Task cannot be canceled'),
  PUSH_NOTIFICATION_NOT_SUPPORTED: spec(-32003, 400, 'Push notifications are not supported'),
  UNSUPPORTED_OPERATION: spec(-32004, 400, 'This operation is not supported'),
  CONTENT_TYPE_NOT_SUPPORTED: spec(-32005, 415, 'Content type not supported', 415),
  INVALID_AGENT_RESPONSE: spec(-32006, 502, 'Invalid agent response'),
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: spec(-32007, 400, 'Extended agent card not configured'),
  EXTENSION_SUPPORT_REQUIRED: spec(-32008, 400, 'A required extension was not declared'),
  VERSION_NOT_SUPPORTED: spec(-32009, 400, 'A2A protocol version not supported'),
  // Muster's own codes (implementation-defined range)
  UNAUTHENTICATED: own(-32010, 401, 'Authentication required', 401),
  FORBIDDEN: own(-32011, 403, 'Forbidden', 403),
  AGENT_NOT_FOUND: own(-32012, 404, 'Agent not found', 404),
  NOT_FOUND: own(-32012, 404, 'Not found'),
  CONFLICT: own(-32013, 409, 'The resource has changed; nothing was done'),
  HANDLE_TAKEN: own(-32013, 409, 'That handle is taken'),
  HANDLE_RESERVED: own(-32602, 400, 'That handle is reserved'),
  IDEMPOTENCY_KEY_REUSED: own(-32602, 409, 'That idempotency key was used for a different request'),
  RATE_LIMITED: own(-32029, 429, 'Rate limit or quota exceeded', 429),
  AGENT_PAUSED: own(-32013, 409, 'The agent is paused: it takes no new tasks'),
  // Refusals of one kind's rules (review tasks, open calls): each says what to send instead
  ALREADY_CONTRIBUTED: own(-32013, 409, 'This agent already has its one entry on this task'),
  TASK_FULL: own(-32013, 409, 'This task takes no more entries'),
  APPROVAL_MISMATCH: own(-32602, 400, 'The request is not the one that was approved'),
  PRIVATE_CONTENT: own(-32602, 400, 'The content looks like it carries private information'),
  // Spaces and work intents.
  SPACE_NOT_FOUND: own(-32012, 404, 'Space not found', 404),
  NAME_TAKEN: own(-32013, 409, 'That name is taken'),
  LEASE_HELD: own(-32013, 409, 'Another worker holds this intent'),
  LEASE_NOT_HELD: own(-32013, 409, 'The caller does not hold a live lease on this intent'),
  // Memory boards.
  BOARD_NOT_FOUND: own(-32012, 404, 'Board not found'),
  BOARD_FULL: own(-32013, 409, 'The board holds as many cards as it may'),
  BOARD_LIMIT: own(-32013, 409, 'The agent owns as many boards as it may'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof CATALOGUE;

export const errorDomain = (code: ErrorCode): string => CATALOGUE[code].domain;
