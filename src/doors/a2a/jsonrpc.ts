/** The JSON-RPC 2.0 envelope: request checks, dispatch, and response shapes. Small enough to own. */
import { isJsonObject } from '../../a2a/types.js';
import { renamedFields, spelledAsSent } from '../../a2a/validate.js';
import { HubError, isHubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { Actor } from '../../hub/actor.js';
import { uncheckedToken, type Caller } from '../../identity/caller.js';
import { asHubError, jsonRpcError, jsonRpcStatus, type JsonRpcErrorObject } from '../http/errors.js';
import { EventStream, METHODS, type CallContext, type Method } from './methods.js';
import { checkVersion } from './version.js';

export type JsonRpcId = string | number | null;

export type JsonRpcResponse =
  { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject };

export interface Answer {
  status: number;
  body: JsonRpcResponse | undefined;
  error?: HubError;
  /** What was thrown, when it was not a HubError (for the log, never for the caller). */
  cause?: unknown;
  /** Set when the method answers with a stream of events (SSE) instead of one body. */
  stream?: { id: JsonRpcId; events: EventStream };
}

const NO_ANSWER: Answer = { status: 204, body: undefined };

/** Any failure as a JSON-RPC error answer; field names are given from `params`, where the caller sent them. */
export function errorAnswer(id: JsonRpcId, error: unknown): Answer {
  const hubError = asHubError(error).under('params');
  return {
    status: jsonRpcStatus(hubError),
    body: { jsonrpc: '2.0', id, error: jsonRpcError(hubError) },
    error: hubError,
    cause: error,
  };
}

/**
 * What one JSON-RPC endpoint answers and how it words a refusal: the A2A door's methods and
 * error table, or a seed dialect's own (src/dialects/), over the same envelope.
 */
export interface Dispatch {
  methods: ReadonlyMap<string, Method>;
  /** The hint for an unknown method: the names this endpoint answers. */
  methodHint: string;
  errorAnswer: (id: JsonRpcId, error: unknown) => Answer;
}

const A2A_DISPATCH: Dispatch = {
  methods: METHODS,
  methodHint: 'A2A 1.0 names such as SendMessage, or 0.3 names such as message/send',
  errorAnswer,
};

function checkEnvelope(body: unknown): { id: JsonRpcId; method: string; params: unknown; notification: boolean } {
  if (Array.isArray(body))
    throw new HubError('INVALID_REQUEST', 'Batch requests are not supported', {
      hint: 'Send one JSON-RPC request object per HTTP request',
    });
  if (!isJsonObject(body)) throw new HubError('INVALID_REQUEST', 'The body must be a JSON-RPC request object');
  const { id, jsonrpc, method, params } = body;
  if (jsonrpc !== '2.0') throw new HubError('INVALID_REQUEST', 'The \'jsonrpc\' member must be "2.0"');
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    throw new HubError('INVALID_REQUEST', "The 'id' member must be a string, a number or null");
  }
  if (typeof method !== 'string' || method === '')
    throw new HubError('INVALID_REQUEST', "The 'method' member is required", {
      hint: 'For example "method": "SendMessage"',
    });
  // A params member that is not structured makes the request itself invalid; an array is structured, but not what A2A takes.
  if (params !== undefined && (params === null || typeof params !== 'object'))
    throw new HubError('INVALID_REQUEST', "The 'params' member must be an object");
  if (Array.isArray(params))
    throw new HubError('INVALID_PARAMS', "The 'params' member must be an object, not an array");
  return { id: (id as JsonRpcId | undefined) ?? null, method, params, notification: id === undefined };
}

/**
 * Answers one HTTP body. `actor` authenticates lazily, after the envelope is known to be
 * sound, so an envelope error is reported as such, and a bad token as 401 even on a read. The
 * caller's token is checked before the method runs, or, for a method that `checksToken`, in its
 * own read or write, and in any case before anything is answered.
 */
export async function answer(
  hub: Hub,
  body: unknown,
  version: string | undefined,
  actor: () => Promise<Actor>,
  call: CallContext,
  dispatch: Dispatch = A2A_DISPATCH,
): Promise<Answer> {
  let notification = false;
  let caller: Caller | undefined;
  let params: unknown;
  let id: JsonRpcId =
    isJsonObject(body) && (typeof body['id'] === 'string' || typeof body['id'] === 'number') ? body['id'] : null;
  try {
    const request = checkEnvelope(body);
    id = request.id;
    checkVersion(version);
    const method = dispatch.methods.get(request.method);
    if (!method)
      throw new HubError('METHOD_NOT_FOUND', `Method '${request.method}' not found`, { hint: dispatch.methodHint });
    notification = request.notification;
    const asked = await actor();
    caller = asked.caller;
    // Awaited only while the token is still to be checked: an await costs a turn of the microtask queue.
    if (!method.checksToken && uncheckedToken(caller)) await hub.authentication.confirm(caller);
    params = request.params ?? {};
    const result = await method.handler(hub, asked, params, call);
    if (uncheckedToken(caller)) await hub.authentication.confirm(caller); // unless a statement of the method checked it
    if (result instanceof EventStream) return { status: 200, body: undefined, stream: { id, events: result } };
    return notification ? NO_ANSWER : { status: 200, body: { jsonrpc: '2.0', id, result } };
  } catch (error) {
    // A refusal is no answer to a token that is no longer live: that is told instead.
    const told = caller
      ? await hub.authentication.confirm(caller).then(
          () => error,
          (e: unknown) => e,
        )
      : error;
    // Methods read params renamed to camelCase (camelKeys); the caller is told the fields as it spelled them.
    const named = renamedFields(told, spelledAsSent(params));
    // JSON-RPC 2.0: a notification (a sound request without an id) is never answered, not even with an error.
    return notification ? NO_ANSWER : dispatch.errorAnswer(id, withTaskBase(named, call.base));
  }
}

/** The view names the base that has a task as a path (`agents/bob/`); the caller gets its URL. */
function withTaskBase(error: unknown, base: string): unknown {
  if (!isHubError(error) || error.meta['taskBase'] === undefined) return error;
  const url = new URL(error.meta['taskBase'], base).href;
  return error.hinted(`Read it at ${url}`, { ...error.meta, taskBase: url });
}
