/**
 * The colony's error table: the hub's refusals as its JSON-RPC clients expect them. A write
 * without a live token is HTTP 401 with code -32000, and one the colony's rules do not allow
 * this token (it is not the owner's, an orchestrator's or the admin's) is 403 with the same
 * code; both say that writes need a Muster agent token and reads need none. A colony that does
 * not exist is 404. Every other refusal keeps the A2A door's code and its sentence, which says
 * what to send instead.
 */
import type { ErrorCode } from '../../errors/catalogue.js';
import { HubError } from '../../errors/hub-error.js';
import { JSONRPC_ERRORS, type JsonRpcMapping } from '../../doors/a2a/jsonrpc-errors.js';
import type { Answer, JsonRpcId } from '../../doors/a2a/jsonrpc.js';
import { asHubError, jsonRpcError } from '../../doors/http/errors.js';

export const FIRETRIDENT_ERRORS: Record<ErrorCode, JsonRpcMapping> = Object.assign({}, JSONRPC_ERRORS, {
  UNAUTHENTICATED: { code: -32000, http: 401 },
  FORBIDDEN: { code: -32000, http: 403 },
  SPACE_NOT_FOUND: { code: -32001, http: 404 },
});

export const TOKEN_RULE =
  'Writes (SendMessage, CancelTask) need a Muster agent token, sent as Authorization: Bearer <token> (POST /api/agents gives one); GetTask and ListTasks need none.';

/** The same refusal said another way, its hint, fields and facts kept. */
const reworded = (error: HubError, message: string, hint = error.hint): HubError =>
  new HubError(error.code, message, { ...(hint ? { hint } : {}), fields: error.fields, meta: error.meta });

/** The refusal in the colony's words, where they differ from the hub's. */
export function colonyWords(error: HubError): HubError {
  if (error.code === 'UNAUTHENTICATED' || error.code === 'FORBIDDEN')
    return reworded(error, `${error.message}. ${TOKEN_RULE}`);
  if (error.code === 'SPACE_NOT_FOUND')
    return reworded(
      error,
      error.message.replace('space', 'colony'),
      'A colony is a Muster space: list them with GET /api/spaces',
    );
  return error;
}

/** Any failure as the colony's JSON-RPC error answer (its dispatch's errorAnswer). */
export function fireErrorAnswer(id: JsonRpcId, thrown: unknown): Answer {
  const error = colonyWords(asHubError(thrown).under('params'));
  const mapping = FIRETRIDENT_ERRORS[error.code];
  const body = Object.assign(jsonRpcError(error), { code: mapping.code });
  return { status: mapping.http, body: { jsonrpc: '2.0', id, error: body }, error, cause: thrown };
}
