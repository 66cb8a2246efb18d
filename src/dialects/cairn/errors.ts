/**
 * Cairn's error table: each hub error's code in Cairn's words, and whether it is a refusal of
 * what was sent (a payload, a cap, a duplicate). A refused SendMessage at /cairn/ is answered
 * with an agent Message carrying `{error: {code, issues?}}` and `metadata.cairn.accepted: false`,
 * as Cairn's clients expect; everything else there stays a JSON-RPC error (the A2A door's
 * numbers, which are Cairn's too), and the older HTTP routes send the same `error` object as
 * their body. A code added to the catalogue fails to compile until it is here.
 */
import { randomUUID } from 'node:crypto';
import type { Message } from '../../a2a/types.js';
import type { ErrorCode } from '../../errors/catalogue.js';
import type { HubError } from '../../errors/hub-error.js';
import { restStatus } from '../../errors/rest-status.js';

interface CairnCode {
  code: string;
  /** A refusal of what was sent: a Message at SendMessage, never a JSON-RPC error. */
  refusal?: true;
}

const refusal = (code: string): CairnCode => ({ code, refusal: true });
const error = (code: string): CairnCode => ({ code });

export const CAIRN_CODES: Record<ErrorCode, CairnCode> = {
  PARSE_ERROR: error('invalid_json'),
  INVALID_REQUEST: error('invalid_request'),
  METHOD_NOT_FOUND: error('method_not_found'),
  INVALID_PARAMS: refusal('invalid_payload'), // a refusal only when it names the message's data part (payloadRefusal)
  INTERNAL: error('internal_error'),
  UNAVAILABLE: error('unavailable'),
  PAYLOAD_TOO_LARGE: error('payload_too_large'),
  REQUEST_TIMEOUT: error('request_timeout'),
  HEADERS_TOO_LARGE: error('headers_too_large'),
  ROUTE_NOT_FOUND: error('not_found'),
  TASK_NOT_FOUND: error('task_not_found'),
  TASK_NOT_CANCELABLE: error('task_not_cancelable'),
  PUSH_NOTIFICATION_NOT_SUPPORTED: error('push_not_supported'),
  UNSUPPORTED_OPERATION: error('unsupported_operation'),
  CONTENT_TYPE_NOT_SUPPORTED: error('unsupported_content_type'),
  INVALID_AGENT_RESPONSE: error('invalid_agent_response'),
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: error('extended_card_not_configured'),
  EXTENSION_SUPPORT_REQUIRED: error('extension_required'),
  VERSION_NOT_SUPPORTED: error('version_not_supported'),
  UNAUTHENTICATED: error('unauthenticated'),
  FORBIDDEN: refusal('not_allowed'),
  AGENT_NOT_FOUND: error('agent_not_found'),
  NOT_FOUND: error('not_found'),
  CONFLICT: error('conflict'),
  HANDLE_TAKEN: refusal('handle_taken'),
  HANDLE_RESERVED: refusal('handle_reserved'),
  IDEMPOTENCY_KEY_REUSED: refusal('operation_id_reused'),
  RATE_LIMITED: refusal('daily_cap'), // `open_task_cap` when it is the cap on open tasks (cairnCode)
  AGENT_PAUSED: refusal('agent_paused'),
  ALREADY_CONTRIBUTED: refusal('duplicate_contribution'),
  TASK_FULL: refusal('task_full'),
  APPROVAL_MISMATCH: refusal('input_preview_changed'),
  PRIVATE_CONTENT: refusal('private_content'),
  SPACE_NOT_FOUND: error('not_found'),
  NAME_TAKEN: error('conflict'),
  LEASE_HELD: error('conflict'),
  LEASE_NOT_HELD: error('conflict'),
  BOARD_NOT_FOUND: error('not_found'),
  BOARD_FULL: error('conflict'),
  BOARD_LIMIT: error('conflict'),
};

/** Held quotas are caps on what is open at once, not on a day's writes. */
const HELD_QUOTAS = new Set(['review.open']);

const cairnCode = (e: HubError): string =>
  e.code === 'RATE_LIMITED' && HELD_QUOTAS.has(e.meta['quota'] ?? '') ? 'open_task_cap' : CAIRN_CODES[e.code].code;

/** Where a SendMessage's data part is: refusals name fields from there on, as the client built them. */
const DATA_PART = /^(params\.)?message\.parts\[0\]\.data(\.args)?\.?/;

/** The `error` object Cairn's clients read: its code, what was wrong, and each field at fault. */
export function cairnError(e: HubError): Record<string, unknown> {
  const issues = e.fields.map((f) => ({ path: f.field.replace(DATA_PART, '') || '(data)', message: f.description }));
  const hint = e.restHint ?? e.hint;
  return {
    code: cairnCode(e),
    message: e.message,
    ...(issues.length > 0 ? { issues } : {}),
    ...(hint ? { hint } : {}),
    ...(e.meta['quota'] ? { quota: e.meta['quota'] } : {}),
  };
}

/** A refusal of a SendMessage's payload, as Cairn answers it: undefined when the error is not one. */
export function refusalMessage(e: HubError, taskId: string | undefined): Message | undefined {
  if (!CAIRN_CODES[e.code].refusal) return undefined;
  // Invalid params of the request itself (no message, a bad role) stay JSON-RPC errors; its data part's are refusals.
  if (
    e.code === 'INVALID_PARAMS' &&
    !e.fields.every((f) => f.field.replace(/^params\./, '').startsWith('message.parts'))
  )
    return undefined;
  return {
    messageId: randomUUID(),
    role: 'ROLE_AGENT',
    parts: [{ data: { error: cairnError(e) }, mediaType: 'application/json' }],
    ...(taskId === undefined ? {} : { taskId, contextId: taskId }),
    metadata: { cairn: { accepted: false } },
  };
}

/** An HTTP route's error answer: the REST status, the same `error` object as a refusal's data part. */
export const cairnErrorBody = (e: HubError) => ({ status: restStatus(e), body: { error: cairnError(e) } });
