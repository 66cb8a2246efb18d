/**
 * The MCP door's error table. A refused tool call is an MCP tool result with isError (the model
 * reads it and can act on it), never a protocol error: it carries the hub's code, message, hint
 * and field violations, and what kind of failure it is, so an agent knows whether to fix its
 * input, retry later or stop. A code added to the catalogue fails to compile until it is here;
 * the client's own codes (the hub unreachable, a bad argument found before sending) are here too.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { asCliError, HubAnswerError } from '../client/errors.js';
import type { ErrorCode } from '../errors/catalogue.js';

/** What the caller can do about a failure. */
export type Remedy =
  /** Change the arguments (the hint and fields say how). */
  | 'fix-input'
  /** Send a valid token (MUSTER_TOKEN, a profile, or Authorization on /mcp). */
  | 'authenticate'
  /** This caller may not do this: ask someone who may. */
  | 'not-allowed'
  /** The thing named does not exist (or is not visible to this caller). */
  | 'not-found'
  /** The state does not allow it now: read it again, then decide. */
  | 'conflict'
  /** Passing: wait, then call again. */
  | 'retry-later'
  /** The hub failed; report it. */
  | 'hub-fault';

/** Codes the client finds itself: the hub unreachable or not a hub, a bad argument, a non-JSON answer. */
type ClientCode = 'UNREACHABLE' | 'NOT_A_HUB' | 'USAGE' | 'BAD_JSON' | 'CLIENT_ERROR';

export const MCP_TOOL_ERRORS: Record<ErrorCode | ClientCode, Remedy> = {
  PARSE_ERROR: 'fix-input',
  INVALID_REQUEST: 'fix-input',
  METHOD_NOT_FOUND: 'hub-fault',
  INVALID_PARAMS: 'fix-input',
  INTERNAL: 'hub-fault',
  UNAVAILABLE: 'retry-later',
  PAYLOAD_TOO_LARGE: 'fix-input',
  REQUEST_TIMEOUT: 'retry-later',
  HEADERS_TOO_LARGE: 'fix-input',
  ROUTE_NOT_FOUND: 'hub-fault',
  TASK_NOT_FOUND: 'not-found',
  TASK_NOT_CANCELABLE: 'conflict',
  PUSH_NOTIFICATION_NOT_SUPPORTED: 'fix-input',
  UNSUPPORTED_OPERATION: 'fix-input',
  CONTENT_TYPE_NOT_SUPPORTED: 'fix-input',
  INVALID_AGENT_RESPONSE: 'retry-later',
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 'not-found',
  EXTENSION_SUPPORT_REQUIRED: 'fix-input',
  VERSION_NOT_SUPPORTED: 'hub-fault',
  UNAUTHENTICATED: 'authenticate',
  FORBIDDEN: 'not-allowed',
  AGENT_NOT_FOUND: 'not-found',
  NOT_FOUND: 'not-found',
  CONFLICT: 'conflict',
  HANDLE_TAKEN: 'fix-input',
  HANDLE_RESERVED: 'fix-input',
  IDEMPOTENCY_KEY_REUSED: 'fix-input',
  RATE_LIMITED: 'retry-later',
  AGENT_PAUSED: 'retry-later',
  ALREADY_CONTRIBUTED: 'conflict',
  TASK_FULL: 'conflict',
  APPROVAL_MISMATCH: 'fix-input',
  PRIVATE_CONTENT: 'fix-input',
  SPACE_NOT_FOUND: 'not-found',
  NAME_TAKEN: 'fix-input',
  LEASE_HELD: 'conflict',
  LEASE_NOT_HELD: 'conflict',
  BOARD_NOT_FOUND: 'not-found',
  BOARD_FULL: 'conflict',
  BOARD_LIMIT: 'conflict',
  UNREACHABLE: 'retry-later',
  NOT_A_HUB: 'fix-input',
  USAGE: 'fix-input',
  BAD_JSON: 'fix-input',
  CLIENT_ERROR: 'hub-fault',
};

/** A code not in the table (an HTTP status the hub never sends on its own): judged by its class. */
function remedyOf(code: string, status: number | undefined): Remedy {
  if (code in MCP_TOOL_ERRORS) return MCP_TOOL_ERRORS[code as keyof typeof MCP_TOOL_ERRORS];
  if (status === 429 || status === 503) return 'retry-later';
  return status !== undefined && status < 500 ? 'fix-input' : 'hub-fault';
}

/** What an agent without a token is told: how each transport takes one. */
const TOKEN_HINT =
  'Give the MCP door an agent token: MUSTER_TOKEN (or `muster login`) for muster mcp, or Authorization: Bearer <token> on /mcp';

/**
 * The hub's hints speak to every door, so they name its routes, methods and skills; where a tool
 * does the same, the MCP door names the tool instead. Only these forms are rewritten: a route no
 * tool covers stays as the hub wrote it.
 */
const IN_TOOL_TERMS: readonly (readonly [RegExp, string])[] = [
  [/\{"skill": "board\.(\w+)"\}/g, 'muster_board_$1'],
  [/GET \/api\/spaces\/\{name\}\/intents\?state=claimable/g, 'muster_intents {space}'],
  [/PUT \/api\/spaces\/([\w-]+)\/members\/\{handle\}/g, 'muster_space_member_add {space: "$1", handle, role}'],
  [
    /PUT \/api\/spaces\/([\w-]+)\/members\/([\w-]+) \{"role": "(\w+)"\}/g,
    'muster_space_member_add {space: "$1", handle: "$2", role: "$3"}',
  ],
  [/GET \/api\/spaces\/([\w-]+)(?![\w/-])/g, 'muster_space {name: "$1"}'],
  [/GET \/api\/spaces(?![\w/-])/g, 'muster_spaces'],
  [/POST \/api\/spaces(?![\w/-])/g, 'muster_space_create'],
  [/cancel the intent \(CancelTask\)/g, 'withdraw the intent (muster_intent_withdraw)'],
  [/POST \/api\/tasks\/([\w-]+)\/claim/g, 'muster_intent_claim {id: "$1"}'],
  [/POST \/api\/tasks\/([\w-]+)\/respond/g, 'muster_respond {id: "$1"}'],
  [/GET \/api\/tasks\/\{id\}/g, 'muster_get_task'],
  [/GET \/api\/tasks\/([\w-]+)/g, 'muster_get_task {id: "$1"}'],
  [/\(GET \/api\/agents\)/g, '(muster_directory_search)'],
  [/\bGetTask\b/g, 'muster_get_task'],
  [/\bCancelTask\b/g, 'muster_cancel'],
];

const inToolTerms = (hint: string | undefined): string | undefined =>
  IN_TOOL_TERMS.reduce((said, [form, tool]) => said?.replace(form, tool), hint);

/** Any failure of a tool as the tool result the model reads: the same facts in text and data. */
export function toolErrorResult(failure: unknown): CallToolResult {
  const error = asCliError(failure);
  const remedy = remedyOf(error.code, error.status);
  // The hub's own words (field names as the tool's arguments name them), not the CLI's flags.
  const words = error instanceof HubAnswerError ? error.inHubWords : error;
  const hint = remedy === 'authenticate' ? TOKEN_HINT : inToolTerms(words.hint);
  const text = [
    `Refused (${error.code}): ${words.message}`,
    ...words.fields.map((f) => `- ${f.field}: ${f.description}`),
    hint ? `Hint: ${hint}` : '',
  ]
    .filter((s) => s !== '')
    .join('\n');
  const structured = {
    error: {
      code: error.code,
      message: words.message,
      remedy,
      ...(hint ? { hint } : {}),
      ...(words.fields.length > 0 ? { fields: words.fields } : {}),
      ...(error.status !== undefined ? { status: error.status } : {}),
    },
  };
  return { isError: true, content: [{ type: 'text', text }], structuredContent: structured };
}
