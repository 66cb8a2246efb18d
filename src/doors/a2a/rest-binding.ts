/**
 * The HTTP+JSON (REST) binding of A2A 1.0 on one base, beside its JSON-RPC endpoint: the
 * specification's paths under the base (`message:send`, `tasks/{id}:cancel`, …), ProtoJSON
 * bodies (application/a2a+json or application/json in; application/json out, as A2A 1.0.0 and
 * its conformance kit have it), SSE for streams, and refusals as
 * google.rpc.Status JSON with an ErrorInfo (rest-binding-errors.ts). Every route calls an
 * operation (src/operations/); the bearer token is the same as on JSON-RPC.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpRequest } from '../http/exchange.js';
import { isJsonObject } from '../../a2a/types.js';
import type { StreamSettings } from '../../config/index.js';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import { callerName } from '../../identity/caller.js';
import type { CallContext } from '../../operations/context.js';
import { invoke, type OperationName } from '../../operations/operations.js';
import { baseUrl, callerOf } from '../http/context.js';
import { asHubError, errorHeaders } from '../http/errors.js';
import { bindingNoRoute } from './not-found.js';
import { publicCard } from './bases.js';
import type { Bindings } from './card.js';
import { EventStream, v1Wire } from './methods.js';
import { statusBody, REST_BINDING_ERRORS } from './rest-binding-errors.js';
import { lastEventIdOf } from './last-event-id.js';
import { checkVersion, requestedVersion } from './version.js';
import { writeEventStream, type SseFrames } from './sse.js';
import { RESPONSE_ENDED } from '../http/sse.js';
import type { OpenStreams } from '../http/open-streams.js';

export interface RestBindingOptions {
  /** The base's path under the hub, ending in `/` ('' for the hub's own). */
  path: string;
  door: (request: HttpRequest) => Promise<Door>;
  publicUrl: URL | undefined;
  bindings: Bindings;
  streams: OpenStreams;
  settings: StreamSettings;
  logError: (error: unknown, request: HttpRequest) => void;
}

/** Events are StreamResponse JSON as they are; a failure mid-stream is an SSE `error` event holding a google.rpc.Status. */
const restFrames: SseFrames = {
  open: '',
  close: '',
  error: (error) => `event: error\ndata: ${JSON.stringify(statusBody(asHubError(error)))}\n\n`,
};

/** The query parameters the requests read as integers and booleans; every other one stays a string (a contextId of digits too). */
const INTEGERS = new Set(['pageSize', 'historyLength', 'page_size', 'history_length']);
const BOOLEANS = new Set(['includeArtifacts', 'include_artifacts']);

/** A query value as ProtoJSON would carry it: integers and booleans typed where the request has them, anything else as sent (so a refusal quotes it). */
function typed(name: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (INTEGERS.has(name) && /^-?\d+$/.test(value)) return Number(value);
  if (BOOLEANS.has(name) && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

const query = (request: FastifyRequest): Record<string, unknown> =>
  Object.fromEntries(Object.entries(request.query as Record<string, unknown>).map(([k, v]) => [k, typed(k, v)]));
const body = (request: FastifyRequest): Record<string, unknown> => (isJsonObject(request.body) ? request.body : {});

/** `tasks/{id}:verb` arrives as one path segment: the task id and the verb after its last colon. */
function taskAndVerb(request: FastifyRequest): { id: string; verb: string | undefined } {
  const segment = (request.params as { task: string }).task;
  const at = segment.lastIndexOf(':');
  return at < 0 ? { id: segment, verb: undefined } : { id: segment.slice(0, at), verb: segment.slice(at + 1) };
}

export function restBindingRoutes(app: FastifyInstance, hub: Hub, options: RestBindingOptions): void {
  const { path, door, publicUrl, bindings, streams, settings } = options;

  /** The caller (its token checked), the base, and what the transport adds; the call ends when the connection closes. */
  const context = async (request: FastifyRequest, reply: FastifyReply) => {
    checkVersion(requestedVersion(request));
    const caller = await callerOf(hub, request);
    const addressed = await door(request);
    const base = baseUrl(publicUrl, request);
    const abort = new AbortController();
    reply.raw.once('close', () => abort.abort(RESPONSE_ENDED));
    const who = callerName(caller);
    const call: CallContext = {
      base,
      signal: abort.signal,
      ...lastEventIdOf(request),
      reserveStream: () => streams.reserve(who),
      publicCard: () => publicCard(hub, addressed, base, bindings),
    };
    return { actor: { caller, door: addressed, hubUrl: base }, call, abort, who };
  };

  const unary =
    (name: OperationName, params: (request: FastifyRequest) => unknown, status = 200) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { actor, call } = await context(request, reply);
      const result = await invoke(name, hub, actor, params(request), call);
      if (status === 204) return reply.code(204).send();
      return reply.code(status).type('application/json').send(result);
    };

  const stream =
    (name: 'SendStreamingMessage' | 'SubscribeToTask', params: (request: FastifyRequest) => unknown) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { actor, call, abort, who } = await context(request, reply);
      // Only `release` outlives the call: holding the whole stream would keep its snapshot as long as the stream.
      const { subscription, release } = await invoke(name, hub, actor, params(request), call);
      reply.hijack();
      const ended = streams.hold(who, abort, actor.caller);
      return writeEventStream(
        reply.raw,
        restFrames,
        new EventStream(subscription, v1Wire, release),
        abort,
        settings,
      ).finally(() => {
        ended();
        release();
      });
    };

  const taskId = (request: FastifyRequest) => ({ id: taskAndVerb(request).id });
  const getTask = unary('GetTask', (request) => ({ ...query(request), id: taskAndVerb(request).id }));
  const cancel = unary('CancelTask', (request) => ({
    id: taskAndVerb(request).id,
    metadata: body(request)['metadata'],
  }));
  const subscribe = stream('SubscribeToTask', taskId);
  const configsOf = (request: FastifyRequest) => ({ taskId: (request.params as { task: string }).task });
  const configOf = (request: FastifyRequest) => ({
    ...configsOf(request),
    id: (request.params as { config: string }).config,
  });

  app.register(async (scope) => {
    scope.setErrorHandler(async (error, request, reply) => {
      const hubError = asHubError(error);
      if (hubError.code === 'INTERNAL') options.logError(error, request);
      if (hubError.code === 'PAYLOAD_TOO_LARGE') reply.header('connection', 'close');
      reply.headers(errorHeaders(hubError));
      return reply.code(REST_BINDING_ERRORS[hubError.code].http).type('application/json').send(statusBody(hubError));
    });
    const at = `/${path}`;
    // A literal colon in a Fastify path is written twice.
    scope.post(`${at}message::send`, unary('SendMessage', body));
    scope.post(`${at}message::stream`, stream('SendStreamingMessage', body));
    scope.get(`${at}tasks`, unary('ListTasks', query));
    // tasks/{id}, tasks/{id}:subscribe (GET or POST, as the specification and the SDK's client send it), tasks/{id}:cancel.
    scope.get(`${at}tasks/:task`, (request, reply) => {
      const { verb } = taskAndVerb(request);
      if (verb === undefined) return getTask(request, reply);
      if (verb === 'subscribe') return subscribe(request, reply);
      throw bindingNoRoute(request.method, request.url);
    });
    scope.post(`${at}tasks/:task`, (request, reply) => {
      const { verb } = taskAndVerb(request);
      if (verb === 'cancel') return cancel(request, reply);
      if (verb === 'subscribe') return subscribe(request, reply);
      throw bindingNoRoute(request.method, request.url);
    });
    scope.post(
      `${at}tasks/:task/pushNotificationConfigs`,
      unary('CreateTaskPushNotificationConfig', (request) => ({ ...body(request), ...configsOf(request) }), 201),
    );
    scope.get(`${at}tasks/:task/pushNotificationConfigs`, unary('ListTaskPushNotificationConfigs', configsOf));
    scope.get(`${at}tasks/:task/pushNotificationConfigs/:config`, unary('GetTaskPushNotificationConfig', configOf));
    scope.delete(
      `${at}tasks/:task/pushNotificationConfigs/:config`,
      unary('DeleteTaskPushNotificationConfig', configOf, 204),
    );
    scope.get(
      `${at}extendedAgentCard`,
      unary('GetExtendedAgentCard', () => ({})),
    );
  });
}
