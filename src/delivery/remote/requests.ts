/**
 * The hub's calls to an agent's own endpoint, in the endpoint's version and binding. Each call is
 * kept in the outbox as a 1.0 JSON-RPC request (what the hub itself speaks); it is written in the
 * endpoint's protocol only when it is sent, so an endpoint verified again with another card is
 * spoken to in its new protocol from the next attempt on.
 */
import { messageOut } from '../../a2a/legacy.js';
import { isJsonObject, type JsonObject, type Message } from '../../a2a/types.js';
import type { EndpointInterface } from './interface.js';

/** The calls the hub makes: a forward or a follow-up, a read of the remote task or its stream, a cancel. */
export type RemoteMethod = 'SendMessage' | 'GetTask' | 'SubscribeToTask' | 'CancelTask';

export interface RemoteCall {
  id: string;
  method: RemoteMethod;
  params: JsonObject;
}

export interface RemoteRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** A call as the outbox keeps it. */
export const storedCall = (call: RemoteCall): string =>
  JSON.stringify({ jsonrpc: '2.0', id: call.id, method: call.method, params: call.params });

export function callOf(stored: string): RemoteCall {
  const { id, method, params } = JSON.parse(stored) as { id: string; method: RemoteMethod; params: JsonObject };
  return { id, method, params };
}

const LEGACY_METHOD: Record<RemoteMethod, string> = {
  SendMessage: 'message/send',
  GetTask: 'tasks/get',
  SubscribeToTask: 'tasks/resubscribe',
  CancelTask: 'tasks/cancel',
};

/** 1.0 SendMessage params in 0.3's words: the message's shapes, and `blocking: false` for `returnImmediately`. */
function legacySendParams(params: JsonObject): JsonObject {
  const { message, configuration, ...rest } = params;
  const config = isJsonObject(configuration) ? configuration : {};
  const accepted = config['acceptedOutputModes'];
  const push = config['taskPushNotificationConfig'];
  return Object.assign(rest, {
    message: messageOut(message as Message),
    configuration: Object.assign(
      { blocking: config['returnImmediately'] !== true },
      accepted ? { acceptedOutputModes: accepted } : {},
      push ? { pushNotificationConfig: push } : {},
    ),
  });
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const V1_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** The HTTP request that makes `call` at the endpoint's interface; a subscription asks for an event stream. */
export function remoteRequest(iface: EndpointInterface, call: RemoteCall): RemoteRequest {
  const request = requestIn(iface, call);
  return call.method === 'SubscribeToTask'
    ? Object.assign(request, { headers: Object.assign({ accept: 'text/event-stream' }, request.headers) })
    : request;
}

function requestIn(iface: EndpointInterface, call: RemoteCall): RemoteRequest {
  const envelope = (method: string, params: JsonObject) =>
    JSON.stringify({ jsonrpc: '2.0', id: call.id, method, params });
  switch (iface.protocol) {
    case 'JSONRPC/1.0':
      return { url: iface.url, method: 'POST', headers: V1_HEADERS, body: envelope(call.method, call.params) };
    case 'JSONRPC/0.3': {
      // 0.3 clients send no A2A-Version: a server that reads it takes its absence as 0.3 (A2A 1.0 §3.6.2).
      const params = call.method === 'SendMessage' ? legacySendParams(call.params) : call.params;
      return {
        url: iface.url,
        method: 'POST',
        headers: JSON_HEADERS,
        body: envelope(LEGACY_METHOD[call.method], params),
      };
    }
    case 'HTTP+JSON/1.0':
      return restRequest(iface.url.replace(/\/+$/, ''), call);
  }
}

function restRequest(base: string, call: RemoteCall): RemoteRequest {
  const task = encodeURIComponent(String(call.params['id'] ?? ''));
  switch (call.method) {
    case 'SendMessage':
      return { url: `${base}/message:send`, method: 'POST', headers: V1_HEADERS, body: JSON.stringify(call.params) };
    case 'GetTask':
      return { url: `${base}/tasks/${task}`, method: 'GET', headers: { 'a2a-version': '1.0' } };
    case 'SubscribeToTask':
      return { url: `${base}/tasks/${task}:subscribe`, method: 'GET', headers: { 'a2a-version': '1.0' } };
    case 'CancelTask':
      return { url: `${base}/tasks/${task}:cancel`, method: 'POST', headers: V1_HEADERS, body: '{}' };
  }
}
