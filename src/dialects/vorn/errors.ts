/**
 * The Vorn dialect's error tables. Its REST routes answer Vorn's envelope `{error, code, status}`
 * (plus `hint`, `fields` and the facts a refusal carries, in snake_case); its JSON-RPC endpoints
 * answer the A2A codes with Vorn's own where it differs: -32029 for a rate limit (429) and for a
 * database that cannot count one (503: the limits fail closed), and an unknown agent as HTTP 404.
 * Each table is typed `Record<ErrorCode, …>`, so a new hub error does not compile until it is here.
 */
import { LEGACY_STATE } from '../../a2a/states.js';
import type { TaskState } from '../../a2a/types.js';
import type { ErrorCode } from '../../errors/catalogue.js';
import type { HubError } from '../../errors/hub-error.js';
import { JSONRPC_ERRORS, type JsonRpcMapping } from '../../doors/a2a/jsonrpc-errors.js';
import type { Answer, JsonRpcId } from '../../doors/a2a/jsonrpc.js';
import { asHubError, type JsonRpcErrorObject } from '../../doors/http/errors.js';

/** Vorn's machine-readable codes. */
export type VornCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID_TRANSITION'
  | 'FORWARDING_NOT_AVAILABLE'
  | 'ENDPOINT_UNSAFE'
  | 'AGENT_PAUSED'
  | 'UNSUPPORTED_OPERATION'
  | 'RATE_LIMITED'
  | 'RATE_LIMITER_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE'
  | 'BAD_GATEWAY'
  | 'INTERNAL_ERROR';

type RestMapping = readonly [VornCode, number];

const invalid: RestMapping = ['VALIDATION_ERROR', 400];
const notFound: RestMapping = ['NOT_FOUND', 404];
const conflict: RestMapping = ['CONFLICT', 409];

export const VORN_REST_ERRORS: Record<ErrorCode, RestMapping> = {
  PARSE_ERROR: invalid,
  INVALID_REQUEST: invalid,
  METHOD_NOT_FOUND: notFound,
  INVALID_PARAMS: invalid,
  INTERNAL: ['INTERNAL_ERROR', 500],
  UNAVAILABLE: ['SERVICE_UNAVAILABLE', 503],
  PAYLOAD_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 413],
  ROUTE_NOT_FOUND: notFound,
  REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 408],
  HEADERS_TOO_LARGE: ['HEADERS_TOO_LARGE', 431],
  TASK_NOT_FOUND: notFound,
  TASK_NOT_CANCELABLE: ['INVALID_TRANSITION', 409],
  PUSH_NOTIFICATION_NOT_SUPPORTED: ['UNSUPPORTED_OPERATION', 400],
  UNSUPPORTED_OPERATION: ['UNSUPPORTED_OPERATION', 400],
  CONTENT_TYPE_NOT_SUPPORTED: ['UNSUPPORTED_MEDIA_TYPE', 415],
  INVALID_AGENT_RESPONSE: ['BAD_GATEWAY', 502],
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: notFound,
  EXTENSION_SUPPORT_REQUIRED: invalid,
  VERSION_NOT_SUPPORTED: invalid,
  UNAUTHENTICATED: ['UNAUTHENTICATED', 401],
  FORBIDDEN: ['FORBIDDEN', 403],
  AGENT_NOT_FOUND: notFound,
  NOT_FOUND: notFound,
  CONFLICT: conflict,
  HANDLE_TAKEN: conflict,
  HANDLE_RESERVED: invalid,
  IDEMPOTENCY_KEY_REUSED: conflict,
  RATE_LIMITED: ['RATE_LIMITED', 429],
  AGENT_PAUSED: ['AGENT_PAUSED', 409],
  ALREADY_CONTRIBUTED: conflict,
  TASK_FULL: conflict,
  APPROVAL_MISMATCH: invalid,
  PRIVATE_CONTENT: invalid,
  SPACE_NOT_FOUND: notFound,
  NAME_TAKEN: conflict,
  LEASE_HELD: conflict,
  LEASE_NOT_HELD: conflict,
  BOARD_NOT_FOUND: notFound,
  BOARD_FULL: conflict,
  BOARD_LIMIT: conflict,
};

/** A refusal a route words in Vorn's own code, where the hub's code means something narrower there. */
export class VornRefusal extends Error {
  constructor(
    readonly code: VornCode,
    readonly status: number,
    readonly refused: HubError,
    readonly facts: Record<string, unknown> = {},
  ) {
    super(refused.message);
  }
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A refusal's facts in Vorn's words: keys in snake_case, a task's state as Vorn spells it
 * (`current_state: "canceled"`), the rule an unsafe endpoint broke as `reason`.
 */
function factsOf(error: HubError): Record<string, unknown> {
  const facts: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error.meta)) {
    if (key === 'currentState') facts['current_state'] = LEGACY_STATE[value as TaskState] ?? value;
    else if (key === 'endpointRefused') facts['reason'] = value;
    else if (key !== 'state') facts[snake(key)] = value;
  }
  return facts;
}

/** The hub error a failure is (or words, for a VornRefusal). */
export const hubErrorOf = (error: unknown): HubError =>
  error instanceof VornRefusal ? error.refused : asHubError(error);

/** Any failure as Vorn's REST envelope and status. */
export function vornRestError(error: unknown): { status: number; body: Record<string, unknown> } {
  const refusal = error instanceof VornRefusal ? error : undefined;
  const hubError = hubErrorOf(error);
  const [code, status] = refusal ? [refusal.code, refusal.status] : VORN_REST_ERRORS[hubError.code];
  const hint = hubError.restHint ?? hubError.hint;
  return {
    status,
    body: {
      error: hubError.message,
      code,
      status,
      ...(hint ? { hint } : {}),
      ...(hubError.fields.length > 0 ? { fields: hubError.fields } : {}),
      ...factsOf(hubError),
      ...refusal?.facts,
    },
  };
}

/** The JSON-RPC table: the A2A door's, with Vorn's codes where they differ. */
export const VORN_RPC_ERRORS: Record<ErrorCode, JsonRpcMapping> = {
  ...JSONRPC_ERRORS,
  AGENT_NOT_FOUND: { code: -32001, http: 404 },
  RATE_LIMITED: { code: -32029, http: 429 },
  UNAVAILABLE: { code: -32029, http: 503 },
};

/** Any failure as a JSON-RPC answer: Vorn's code, and `data` an object (`reason`, `hint`, `fields`, facts). */
export function vornRpcError(id: JsonRpcId, error: unknown): Answer {
  const hubError = asHubError(error).under('params');
  const mapping = VORN_RPC_ERRORS[hubError.code];
  const data = {
    reason: hubError.code,
    ...(hubError.hint ? { hint: hubError.hint } : {}),
    ...(hubError.fields.length > 0 ? { fields: hubError.fields } : {}),
    ...factsOf(hubError),
  };
  return {
    status: mapping.http,
    // Vorn's `data` is one object, where the A2A door's is a list of details.
    body: {
      jsonrpc: '2.0',
      id,
      error: { code: mapping.code, message: hubError.message, data } as unknown as JsonRpcErrorObject,
    },
    error: hubError,
    cause: error,
  };
}
