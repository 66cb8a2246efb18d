/**
 * The one catalogue of hub errors. Every refusal the hub makes is one of these codes, a plain
 * value with no wire numbers: each door maps it through its own table, typed
 * `Record<ErrorCode, …>` so a new code fails to compile until every door maps it (JSON-RPC:
 * doors/a2a/jsonrpc-errors.ts, REST API: errors/rest-status.ts, HTTP+JSON binding:
 * doors/a2a/rest-binding-errors.ts, gRPC: doors/grpc/errors.ts). Codes are stable: never rename
 * or reuse one. docs/a2a-surface.md lists them all (a test checks that).
 */
export interface ErrorSpec {
  /** Default message. */
  readonly message: string;
  /** The ErrorInfo domain: the A2A specification's own errors, or Muster's. */
  readonly domain: 'a2a-protocol.org' | 'muster.hub';
}

const spec = (message: string): ErrorSpec => ({ message, domain: 'a2a-protocol.org' });
const own = (message: string): ErrorSpec => ({ message, domain: 'muster.hub' });

export const CATALOGUE = {
  // JSON-RPC envelope (JSON-RPC 2.0)
  // (JSON-RPC's own codes: their ErrorInfo reasons are Muster's, so is their domain)
  PARSE_ERROR: own('Invalid JSON payload'),
  INVALID_REQUEST: own('Request payload validation error'),
  METHOD_NOT_FOUND: own('Method not found'),
  INVALID_PARAMS: own('Invalid parameters'),
  INTERNAL: own('Internal error'),
  UNAVAILABLE: own('The hub cannot reach its database right now'),
  // HTTP-level refusals (answered on every door with a JSON body)
  PAYLOAD_TOO_LARGE: own('Request body is larger than 1 MiB'),
  ROUTE_NOT_FOUND: own('No such route'),
  REQUEST_TIMEOUT: own('The request did not arrive in time'),
  HEADERS_TOO_LARGE: own('The request header fields are too large'),
  // A2A 1.0 errors
  TASK_NOT_FOUND: spec('Task not found'),
  TASK_NOT_CANCELABLE: spec('Task cannot be canceled'),
  PUSH_NOTIFICATION_NOT_SUPPORTED: spec('Push notifications are not supported'),
  UNSUPPORTED_OPERATION: spec('This operation is not supported'),
  CONTENT_TYPE_NOT_SUPPORTED: spec('Content type not supported'),
  INVALID_AGENT_RESPONSE: spec('Invalid agent response'),
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: spec('Extended agent card not configured'),
  EXTENSION_SUPPORT_REQUIRED: spec('A required extension was not declared'),
  VERSION_NOT_SUPPORTED: spec('A2A protocol version not supported'),
  // Muster's own codes (implementation-defined range)
  UNAUTHENTICATED: own('Authentication required'),
  FORBIDDEN: own('Forbidden'),
  AGENT_NOT_FOUND: own('Agent not found'),
  NOT_FOUND: own('Not found'),
  CONFLICT: own('The resource has changed; nothing was done'),
  HANDLE_TAKEN: own('That handle is taken'),
  HANDLE_RESERVED: own('That handle is reserved'),
  IDEMPOTENCY_KEY_REUSED: own('That idempotency key was used for a different request'),
  RATE_LIMITED: own('Rate limit or quota exceeded'),
  AGENT_PAUSED: own('The agent is paused: it takes no new tasks'),
  // Refusals of one kind's rules (review tasks, open calls): each says what to send instead
  ALREADY_CONTRIBUTED: own('This agent already has its one entry on this task'),
  TASK_FULL: own('This task takes no more entries'),
  APPROVAL_MISMATCH: own('The request is not the one that was approved'),
  PRIVATE_CONTENT: own('The content looks like it carries private information'),
  // Spaces and work intents.
  SPACE_NOT_FOUND: own('Space not found'),
  NAME_TAKEN: own('That name is taken'),
  LEASE_HELD: own('Another worker holds this intent'),
  LEASE_NOT_HELD: own('The caller does not hold a live lease on this intent'),
  // Memory boards.
  BOARD_NOT_FOUND: own('Board not found'),
  BOARD_FULL: own('The board holds as many cards as it may'),
  BOARD_LIMIT: own('The agent owns as many boards as it may'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof CATALOGUE;

export const errorDomain = (code: ErrorCode): string => CATALOGUE[code].domain;
