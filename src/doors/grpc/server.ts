/**
 * The gRPC binding of A2A 1.0, on its own port (--grpc-port): the SDK's service definition
 * (A2AService: method paths and protobuf codecs) with the hub's own handlers, each calling an
 * operation (src/operations/). A request's `tenant` names the base it addresses ('' the hub,
 * `agents/{handle}`, `spaces/{name}`, `memory`), as each card's GRPC interface says; the bearer
 * token travels in the `authorization` metadata, as on HTTP. Refusals carry the gRPC status of
 * this door's table (errors.ts) and a google.rpc.Status with ErrorInfo in `grpc-status-details-bin`.
 */
import * as grpc from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { StreamResponse as StreamEvent } from '../../a2a/types.js';
import { endsStream } from '../../events/follow.js';
import type { Hub } from '../../hub/hub.js';
import { callerLabel, callerName, type Caller } from '../../identity/caller.js';
import type { Logger } from '../../observability/logger.js';
import type { CallContext, TaskStream } from '../../operations/context.js';
import { invoke, type OperationName } from '../../operations/operations.js';
import { asHubError } from '../http/errors.js';
import { HubError } from '../../errors/hub-error.js';
import { publicCard, tenantDoor } from '../a2a/bases.js';
import type { Bindings } from '../a2a/card.js';
import { checkVersion } from '../a2a/version.js';
import { lastEventIdFrom } from '../a2a/last-event-id.js';
import { drained } from '../http/drained.js';
import type { OpenStreams } from '../http/open-streams.js';
import { GRPC_ERRORS } from './errors.js';
import { LIMITS } from '../../wire/limits.js';
import { statusDetails } from './status-details.js';

export interface GrpcOptions {
  host: string;
  port: number;
  /** The hub's HTTP base URL, for URLs in answers and cards (known once HTTP listens). */
  hubBase: () => string;
  bindings: () => Bindings;
  streams: OpenStreams;
  /** How long a stream waits for a client that stopped reading before it is closed (sseDrainTimeoutMs). */
  drainTimeoutMs: number;
  logger: Logger;
}

export interface RunningGrpc {
  port: number;
  close(): Promise<void>;
}

/** The SDK's ProtoJSON codec of a message: what arrives is read as ProtoJSON, what leaves is built from it. */
type Codec = { toJSON(message: never): unknown };
type Out = { fromJSON(object: never): unknown };
type Metadata = grpc.Metadata;

const first = (metadata: Metadata, key: string): string | undefined => {
  const value = metadata.get(key)[0];
  return value === undefined ? undefined : String(value);
};

/** The client's address, as per-address limits count it: `ipv4:127.0.0.1:5000` → `127.0.0.1`. */
const peerAddress = (peer: string): string => {
  const bare = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\]/.exec(bare);
  return bracketed ? bracketed[1]! : bare.replace(/:\d+$/, '');
};

export async function startGrpc(hub: Hub, options: GrpcOptions): Promise<RunningGrpc> {
  const open = new Set<AbortController>();

  /** The call as the hub sees it: the caller (its token checked), the base its tenant names, what the transport adds. */
  const context = async (
    call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
    abort: AbortController,
  ) => {
    checkVersion(first(call.metadata, 'a2a-version'));
    const authorization = first(call.metadata, 'authorization');
    const caller = await hub.authentication.authenticate(authorization, peerAddress(call.getPeer()));
    await hub.authentication.confirm(caller);
    const base = options.hubBase();
    // The gRPC port opens just before HTTP does: until then the hub has no URL to put in answers.
    if (base === '') throw new HubError('UNAVAILABLE', 'The hub is starting', { hint: 'Retry in a moment' });
    const door = await tenantDoor(hub, String((call.request as { tenant?: unknown }).tenant ?? ''));
    const who = callerName(caller);
    const context: CallContext = {
      base,
      signal: abort.signal,
      ...lastEventIdFrom(first(call.metadata, 'last-event-id')),
      reserveStream: () => options.streams.reserve(who),
      publicCard: () => publicCard(hub, door, base, options.bindings()),
    };
    return { actor: { caller, door, hubUrl: base }, call: context, who };
  };

  /** A refusal as gRPC says it; a bad token is counted against the client's address, as on HTTP. */
  const refusal = async (
    error: unknown,
    metadata: Metadata,
    peer: string,
  ): Promise<Partial<grpc.StatusObject> & { code: grpc.status }> => {
    const hubError = asHubError(error);
    if (hubError.code === 'INTERNAL') options.logger.error({ err: error }, 'a gRPC call failed unexpectedly');
    const authorization = first(metadata, 'authorization');
    if (hubError.code === 'UNAUTHENTICATED' && authorization)
      await hub.authentication.tokenRefused(authorization, peerAddress(peer)).catch(() => undefined);
    const code = GRPC_ERRORS[hubError.code];
    const details: Record<string, string> = Object.assign(
      {},
      hubError.meta,
      hubError.hint ? { hint: hubError.hint } : {},
    );
    const trailer = new grpc.Metadata();
    trailer.set('grpc-status-details-bin', statusDetails(code, hubError, details));
    return { code, details: hubError.message, metadata: trailer };
  };

  /** One line per call, as the HTTP doors write one per request (never the token). */
  const logged = (name: OperationName, started: number, status: grpc.status, caller: Caller | undefined) =>
    options.logger.info(
      {
        grpc: name,
        status: grpc.status[status],
        caller: caller ? callerLabel(caller) : undefined,
        ms: Date.now() - started,
      },
      'grpc call',
    );

  const unary =
    (name: OperationName, codec: Codec, out: Out) =>
    async (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const started = Date.now();
      const abort = new AbortController();
      call.once('cancelled', () => abort.abort());
      let caller: Caller | undefined;
      try {
        const { actor, call: ctx } = await context(call, abort);
        caller = actor.caller;
        const result = await invoke(name, hub, actor, codec.toJSON(call.request as never), ctx);
        callback(null, out.fromJSON(result as never));
        logged(name, started, grpc.status.OK, caller);
      } catch (error) {
        const status = await refusal(error, call.metadata, call.getPeer());
        callback(status, null);
        logged(name, started, status.code, caller);
      } finally {
        abort.abort();
      }
    };

  const stream =
    (name: 'SendStreamingMessage' | 'SubscribeToTask', codec: Codec) =>
    async (call: grpc.ServerWritableStream<unknown, unknown>) => {
      const started = Date.now();
      const abort = new AbortController();
      call.once('cancelled', () => abort.abort());
      open.add(abort);
      let opened: TaskStream | undefined;
      let ended: (() => void) | undefined;
      let caller: Caller | undefined;
      try {
        const { actor, call: ctx, who } = await context(call, abort);
        caller = actor.caller;
        opened = await invoke(name, hub, actor, codec.toJSON(call.request as never), ctx);
        ended = options.streams.hold(who, abort, caller);
        await writeEvents(call, opened, abort, options.drainTimeoutMs);
        call.end();
        logged(name, started, grpc.status.OK, caller);
      } catch (error) {
        if (abort.signal.aborted && opened) {
          call.end();
          logged(name, started, grpc.status.CANCELLED, caller);
        } else {
          const status = await refusal(error, call.metadata, call.getPeer());
          call.emit('error', status);
          call.end();
          logged(name, started, status.code, caller);
        }
      } finally {
        ended?.();
        opened?.release();
        open.delete(abort);
        abort.abort();
      }
    };

  const service = {
    sendMessage: unary('SendMessage', SendMessageRequest, SendMessageResponse),
    sendStreamingMessage: stream('SendStreamingMessage', SendMessageRequest),
    getTask: unary('GetTask', GetTaskRequest, Task),
    listTasks: unary('ListTasks', ListTasksRequest, ListTasksResponse),
    cancelTask: unary('CancelTask', CancelTaskRequest, Task),
    subscribeToTask: stream('SubscribeToTask', SubscribeToTaskRequest),
    createTaskPushNotificationConfig: unary(
      'CreateTaskPushNotificationConfig',
      TaskPushNotificationConfig,
      TaskPushNotificationConfig,
    ),
    getTaskPushNotificationConfig: unary(
      'GetTaskPushNotificationConfig',
      GetTaskPushNotificationConfigRequest,
      TaskPushNotificationConfig,
    ),
    listTaskPushNotificationConfigs: unary(
      'ListTaskPushNotificationConfigs',
      ListTaskPushNotificationConfigsRequest,
      ListTaskPushNotificationConfigsResponse,
    ),
    deleteTaskPushNotificationConfig: unary(
      'DeleteTaskPushNotificationConfig',
      DeleteTaskPushNotificationConfigRequest,
      { fromJSON: () => ({}) },
    ),
    getExtendedAgentCard: unary('GetExtendedAgentCard', GetExtendedAgentCardRequest, AgentCard),
  };

  // A request is held to the HTTP doors' body limit.
  const server = new grpc.Server({ 'grpc.max_receive_message_length': LIMITS.bodyBytes });
  server.addService(
    A2AService as unknown as grpc.ServiceDefinition,
    service as unknown as grpc.UntypedServiceImplementation,
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`,
      grpc.ServerCredentials.createInsecure(),
      (e, bound) => (e ? reject(e) : resolve(bound)),
    ),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        open.forEach((a) => a.abort());
        server.tryShutdown(() => resolve());
        // Calls that do not finish in time are cut.
        setTimeout(() => server.forceShutdown(), 5_000).unref();
      }),
  };
}

/** Writes the snapshot, then each event until the one that ends the stream, waiting for the transport to drain. */
async function writeEvents(
  call: grpc.ServerWritableStream<unknown, unknown>,
  opened: TaskStream,
  abort: AbortController,
  drainTimeoutMs: number,
): Promise<void> {
  const { signal } = abort;
  // A client that stops reading is let go after drainTimeoutMs (it resubscribes with last-event-id), as on SSE.
  const write = async (event: StreamEvent) => {
    if (call.write(StreamResponse.fromJSON(event))) return;
    if (!(await drained(call, drainTimeoutMs, signal))) abort.abort();
  };
  await write({ task: opened.subscription.snapshot });
  for await (const { event } of opened.subscription.events) {
    if (signal.aborted) return;
    await write(event);
    // The stream is over: the abort stops the log reader at once.
    if (endsStream(event)) return abort.abort();
  }
}
