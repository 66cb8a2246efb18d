/**
 * Every A2A JSON-RPC method, 1.0 and 0.3 names, mapped to the door-neutral operations
 * (src/operations/). The method name chooses the shapes: 1.0 names answer ProtoJSON, 0.3 names
 * answer 0.3 objects.
 */
import {
  legacyFinal,
  messageOut,
  pushConfigIn,
  pushConfigOut,
  pushSetFieldOut,
  sendFieldOut,
  sendParamsIn,
  streamEventOut,
  taskOut,
} from '../../a2a/legacy.js';
import { endsStream } from '../../events/follow.js';
import { z } from 'zod';
import type { StreamResponse } from '../../a2a/types.js';
import { camelKeys, parseWith, renamedFields } from '../../a2a/validate.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { Subscription } from '../../hub/following.js';
import type { Actor } from '../../hub/actor.js';
import type { CallContext, TaskStream } from '../../operations/context.js';
import { invoke, OPERATIONS, type OperationName, type SendResult } from '../../operations/operations.js';
import { legacyExtendedCard } from './card.js';

export type { CallContext } from '../../operations/context.js';

export type ProtocolVersion = '1.0' | '0.3';

type Handler = (hub: Hub, actor: Actor, params: unknown, call: CallContext) => Promise<unknown>;

/** How one protocol version writes stream events, and which event ends its streams. */
export interface WireFormat {
  shape: (event: StreamResponse) => unknown;
  ends: (event: StreamResponse) => boolean;
}

/** A method's answer that is a stream of events rather than one result. */
export class EventStream {
  constructor(
    readonly subscription: Subscription,
    readonly wire: WireFormat,
    /** Gives the caller's stream slot back when the stream ends. */
    readonly release: () => void,
  ) {}
}

export const v1Wire: WireFormat = { shape: (event) => event, ends: endsStream };
export const legacyWire: WireFormat = {
  shape: streamEventOut,
  ends: (event) => 'statusUpdate' in event && legacyFinal(event.statusUpdate.status.state),
};

const inWire = (wire: WireFormat) => (stream: TaskStream) => new EventStream(stream.subscription, wire, stream.release);

export interface Method {
  version: ProtocolVersion;
  handler: Handler;
  /**
   * The method's first read or write checks the caller's token in its own statement (TaskWrites.send,
   * TaskReads.get), so it runs without a round trip for the token first (see TokenCheck).
   */
  checksToken?: true;
}

/** The 1.0 method of the same name: its operation, its answer as it is. */
const v1Method =
  (name: OperationName): Handler =>
  (hub, actor, params, call) =>
    invoke(name, hub, actor, params, call);

/** A 0.3 method: its params moved into 1.0 places first, its answer shaped after; refusals name each field where the 0.3 caller sent it. */
const legacy =
  <N extends OperationName>(
    name: N,
    shape: (result: Awaited<ReturnType<(typeof OPERATIONS)[N]['run']>>) => unknown,
    fieldOut?: (field: string) => string,
    translate?: (params: unknown) => unknown,
  ): Handler =>
  (hub, actor, params, call) =>
    invoke(name, hub, actor, params, call, translate).then(shape, (e: unknown) => {
      throw fieldOut ? renamedFields(e, fieldOut) : e;
    });

// 0.3 names a push config by the task's `id` and an optional `pushNotificationConfigId`.
const configRef03 = z.object({ id: z.string().min(1), pushNotificationConfigId: z.string().min(1).optional() });
const configRef03In = (params: unknown) => {
  const p = parseWith(configRef03, camelKeys(params));
  return { taskId: p.id, id: p.pushNotificationConfigId };
};

const push03: Record<string, Handler> = {
  'tasks/pushNotificationConfig/set': legacy(
    'CreateTaskPushNotificationConfig',
    pushConfigOut,
    pushSetFieldOut,
    (params) => {
      const p = camelKeys(params) as { taskId?: unknown; pushNotificationConfig?: unknown };
      const config =
        typeof p.pushNotificationConfig === 'object' && p.pushNotificationConfig !== null
          ? pushConfigIn(p.pushNotificationConfig as Record<string, unknown>)
          : {};
      return { ...config, taskId: p.taskId };
    },
  ),
  // Without a config id, 0.3 answers the task's first config.
  'tasks/pushNotificationConfig/get': async (hub, actor, params, call) => {
    const ref = configRef03In(params);
    const { configs } = await invoke('ListTaskPushNotificationConfigs', hub, actor, { taskId: ref.taskId }, call);
    const config = ref.id === undefined ? configs[0] : configs.find((c) => c.id === ref.id);
    if (!config)
      throw new HubError('NOT_FOUND', `No push config of yours on task ${ref.taskId}`, {
        hint: 'Set one with tasks/pushNotificationConfig/set',
      });
    return pushConfigOut(config);
  },
  'tasks/pushNotificationConfig/list': legacy(
    'ListTaskPushNotificationConfigs',
    (result) => result.configs.map(pushConfigOut),
    undefined,
    configRef03In,
  ),
  'tasks/pushNotificationConfig/delete': legacy(
    'DeleteTaskPushNotificationConfig',
    () => null,
    undefined,
    (params) => {
      const p = parseWith(configRef03.required({ pushNotificationConfigId: true }), camelKeys(params));
      return { taskId: p.id, id: p.pushNotificationConfigId };
    },
  ),
};

const sendOut03 = (result: SendResult) => ('task' in result ? taskOut(result.task) : messageOut(result.message));

const v1: Record<string, Handler> = {
  SendMessage: v1Method('SendMessage'),
  SendStreamingMessage: (hub, actor, params, call) =>
    invoke('SendStreamingMessage', hub, actor, params, call).then(inWire(v1Wire)),
  GetTask: v1Method('GetTask'),
  ListTasks: v1Method('ListTasks'),
  CancelTask: v1Method('CancelTask'),
  SubscribeToTask: (hub, actor, params, call) =>
    invoke('SubscribeToTask', hub, actor, params, call).then(inWire(v1Wire)),
  CreateTaskPushNotificationConfig: v1Method('CreateTaskPushNotificationConfig'),
  GetTaskPushNotificationConfig: v1Method('GetTaskPushNotificationConfig'),
  ListTaskPushNotificationConfigs: v1Method('ListTaskPushNotificationConfigs'),
  DeleteTaskPushNotificationConfig: v1Method('DeleteTaskPushNotificationConfig'),
  GetExtendedAgentCard: v1Method('GetExtendedAgentCard'),
};

const v03: Record<string, Handler> = {
  'message/send': legacy('SendMessage', sendOut03, sendFieldOut, sendParamsIn),
  'message/stream': legacy('SendStreamingMessage', inWire(legacyWire), sendFieldOut, sendParamsIn),
  'tasks/get': legacy('GetTask', taskOut),
  'tasks/cancel': legacy('CancelTask', taskOut),
  'tasks/resubscribe': legacy('SubscribeToTask', inWire(legacyWire)),
  ...push03,
  'agent/getAuthenticatedExtendedCard': legacy('GetExtendedAgentCard', legacyExtendedCard),
};

/** The methods that check the caller's token in their own statement: a send and a read of one task. */
const CHECK_TOKEN_THEMSELVES = new Set(['SendMessage', 'GetTask', 'message/send', 'tasks/get']);

/** Methods by name, each marked when it checks its caller's token itself (a seed dialect builds its own table so too). */
export const methodTable = (version: ProtocolVersion, handlers: Record<string, Handler>): [string, Method][] =>
  Object.entries(handlers).map(([name, handler]) => [
    name,
    CHECK_TOKEN_THEMSELVES.has(name) ? { version, handler, checksToken: true } : { version, handler },
  ]);

export const METHODS: ReadonlyMap<string, Method> = new Map([...methodTable('1.0', v1), ...methodTable('0.3', v03)]);
