/**
 * Every A2A JSON-RPC method, 1.0 and 0.3 names, mapped to the hub's services. The method
 * name chooses the shapes: 1.0 names answer ProtoJSON, 0.3 names answer 0.3 objects.
 */
import { listTasksParamsSchema, sendMessageParamsSchema, taskIdParamsSchema } from '../../a2a/schemas.js';
import { legacyFinal, messageOut, pushConfigIn, pushConfigOut, pushSetFieldOut, sendFieldOut, sendParamsIn, streamEventOut, taskOut } from '../../a2a/legacy.js';
import { endsStream } from '../../events/follow.js';
import { configOut } from '../../hub/push.js';
import { z } from 'zod';
import type { Message, SendMessageParams, StreamResponse, Task } from '../../a2a/types.js';
import { camelKeys, parseWith, renamedFields } from '../../a2a/validate.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { Subscription } from '../../hub/following.js';
import { trimHistory, type Actor } from '../../hub/tasks.js';
import { requireToken } from '../../identity/caller.js';
import { READS_NEED_NO_TOKEN } from '../../hub/spaces.js';
import { replyOf } from '../../hub/replies.js';

export type ProtocolVersion = '1.0' | '0.3';

/** What the HTTP request adds to a call: its end (client gone), SSE's Last-Event-ID, the hub's base URL. */
export interface CallContext {
  /** The hub's base URL as this caller reaches it (`http://host:port/`), for URLs in answers. */
  base: string;
  signal: AbortSignal;
  lastEventId?: number;
  /** Takes one of the caller's stream slots (refusing when none is left); returns its release. */
  reserveStream: () => () => void;
}

type Handler = (hub: Hub, actor: Actor, params: unknown, call: CallContext) => Promise<unknown>;

/** A method's answer that is a stream of events rather than one result. */
/** How one protocol version writes stream events, and which event ends its streams. */
export interface WireFormat {
  shape: (event: StreamResponse) => unknown;
  ends: (event: StreamResponse) => boolean;
}

export class EventStream {
  constructor(
    readonly subscription: Subscription,
    readonly wire: WireFormat,
    /** Gives the caller's stream slot back when the stream ends. */
    readonly release: () => void,
  ) {}
}

const v1Wire: WireFormat = { shape: (event) => event, ends: endsStream };
const legacyWire: WireFormat = { shape: streamEventOut, ends: (event) => 'statusUpdate' in event && legacyFinal(event.statusUpdate.status.state) };

/** Opens a stream within the caller's slots: the slot is taken before any work is done. */
async function streamed(call: CallContext, wire: WireFormat, open: () => Promise<Subscription>): Promise<EventStream> {
  const release = call.reserveStream();
  try {
    return new EventStream(await open(), wire, release);
  } catch (e) {
    release();
    throw e;
  }
}


export interface Method {
  version: ProtocolVersion;
  handler: Handler;
  /**
   * The method's first read or write checks the caller's token in its own statement (TaskService
   * send and get), so it runs without a round trip for the token first (see TokenCheck).
   */
  checksToken?: true;
}

const parseSend = (params: unknown) => parseWith(sendMessageParamsSchema, camelKeys(params)) as SendMessageParams;
const parseTaskId = (params: unknown) => parseWith(taskIdParamsSchema, camelKeys(params));
const cancelReason = (metadata: Record<string, unknown> | undefined) =>
  typeof metadata?.['reason'] === 'string' ? (metadata['reason'] as string) : undefined;

const extendedCard: Handler = async () => {
  throw new HubError('UNSUPPORTED_OPERATION', 'This hub has no extended agent card', { hint: 'Read the public card at .well-known/agent-card.json' });
};

/** A write needs a caller before its params are even read: no token is a 401, not a validation error. */
const write =
  (handler: Handler): Handler =>
  async (hub, actor, params, call) => {
    requireToken(actor.caller, 'This method', actor.door.kind === 'space' ? READS_NEED_NO_TOKEN : undefined);
    return handler(hub, actor, params, call);
  };

/** A 0.3 method whose params are moved into 1.0 places: its refusals name each field where the 0.3 caller sent it. */
const sentAs03 =
  (fieldOut: (field: string) => string, handler: Handler): Handler =>
  (hub, actor, params, call) =>
    handler(hub, actor, params, call).catch((e: unknown) => {
      throw renamedFields(e, fieldOut);
    });

// Requests the A2A specification defines: unknown fields are ignored (stripped), as in a2a/schemas.ts.
const configRef = z.object({ taskId: z.string().min(1), id: z.string().min(1) });
const configRef03 = z.object({ id: z.string().min(1), pushNotificationConfigId: z.string().min(1).optional() });
const taskRef = z.object({ taskId: z.string().min(1) });

const push = {
  create: async (hub: Hub, actor: Actor, params: unknown) => configOut(await hub.tasks.setPushConfig(actor, params)),
  get: async (hub: Hub, actor: Actor, params: unknown) => {
    const p = parseWith(configRef, camelKeys(params));
    return configOut(await hub.tasks.pushConfig(actor, p.taskId, p.id));
  },
  list: async (hub: Hub, actor: Actor, params: unknown) => {
    const p = parseWith(taskRef, camelKeys(params));
    return { configs: (await hub.tasks.pushConfigs(actor, p.taskId)).map(configOut), nextPageToken: '' };
  },
  delete: async (hub: Hub, actor: Actor, params: unknown) => {
    const p = parseWith(configRef, camelKeys(params));
    await hub.tasks.deletePushConfig(actor, p.taskId, p.id);
    return {};
  },
};

const push03: Record<string, Handler> = {
  'tasks/pushNotificationConfig/set': sentAs03(
    pushSetFieldOut,
    write(async (hub, actor, params) => {
      const p = camelKeys(params) as { taskId?: unknown; pushNotificationConfig?: unknown };
      const config = typeof p.pushNotificationConfig === 'object' && p.pushNotificationConfig !== null ? pushConfigIn(p.pushNotificationConfig as Record<string, unknown>) : {};
      return pushConfigOut(configOut(await hub.tasks.setPushConfig(actor, { ...config, taskId: p.taskId })));
    }),
  ),
  'tasks/pushNotificationConfig/get': async (hub, actor, params) => {
    const p = parseWith(configRef03, camelKeys(params));
    const configs = await hub.tasks.pushConfigs(actor, p.id);
    const config = p.pushNotificationConfigId === undefined ? configs[0] : configs.find((c) => c.id === p.pushNotificationConfigId);
    if (!config) throw new HubError('NOT_FOUND', `No push config of yours on task ${p.id}`, { hint: 'Set one with tasks/pushNotificationConfig/set' });
    return pushConfigOut(configOut(config));
  },
  'tasks/pushNotificationConfig/list': async (hub, actor, params) => {
    const p = parseWith(configRef03, camelKeys(params));
    return (await hub.tasks.pushConfigs(actor, p.id)).map((c) => pushConfigOut(configOut(c)));
  },
  'tasks/pushNotificationConfig/delete': write(async (hub, actor, params) => {
    const p = parseWith(configRef03.required({ pushNotificationConfigId: true }), camelKeys(params));
    await hub.tasks.deletePushConfig(actor, p.id, p.pushNotificationConfigId);
    return null;
  }),
};
/**
 * SendMessage: a task, or at the hub's base a directory search, answered with a Message and
 * nothing stored (hub/directory.ts). `shape` writes either in the method's protocol version.
 */
const send = (parse: (params: unknown) => SendMessageParams, shape: { task: (task: Task) => unknown; message: (message: Message) => unknown }): Handler =>
  write(async (hub, actor, params, call) => {
    const request = parse(params);
    if (hub.directory.takes(actor.door, request)) return shape.message(await hub.directory.answer(actor.caller, request, call.base));
    const task = await hub.tasks.send(actor, request, () => call.signal);
    const reply = replyOf(task); // the agent answered with a Message: that is the answer
    return reply ? shape.message(reply) : shape.task(task);
  });

/** SendStreamingMessage: the same send, then the task's events until it ends. */
const sendStreaming = (parse: (params: unknown) => SendMessageParams, wire: WireFormat): Handler =>
  write(async (hub, actor, params, call) =>
    streamed(call, wire, async () => {
      const request = parse(params);
      if (hub.directory.takes(actor.door, request)) {
        throw new HubError('UNSUPPORTED_OPERATION', 'A directory search is answered with one message, not a stream', { hint: 'Send it with SendMessage (message/send in 0.3)' });
      }
      // The stream is the wait: the send under it answers at once, whatever returnImmediately says.
      const configuration = Object.assign({}, request.configuration, { returnImmediately: true });
      const task = await hub.tasks.send(actor, Object.assign({}, request, { configuration }));
      // A new task is followed from its opening, so one the hub settled at once streams its whole lifecycle.
      const subscription = await hub.tasks.subscribe(actor, task.id, { signal: call.signal, refuseTerminal: false, fromOpening: request.message.taskId === undefined });
      return Object.assign({}, subscription, { snapshot: trimHistory(subscription.snapshot, request.configuration?.historyLength) });
    }),
  );

/** SubscribeToTask: the task as it stands, then its events; a finished task is refused. */
const subscribe = (wire: WireFormat): Handler => async (hub, actor, params, call) => {
  const p = parseTaskId(params);
  const options = { signal: call.signal, refuseTerminal: true, ...(call.lastEventId === undefined ? {} : { lastEventId: call.lastEventId }) };
  return streamed(call, wire, () => hub.tasks.subscribe(actor, p.id, options));
};

const v1: Record<string, Handler> = {
  SendMessage: send(parseSend, { task: (task) => ({ task }), message: (message) => ({ message }) }),
  SendStreamingMessage: sendStreaming(parseSend, v1Wire),
  GetTask: async (hub, actor, params) => {
    const p = parseTaskId(params);
    return hub.tasks.get(actor, p.id, p.historyLength);
  },
  ListTasks: async (hub, actor, params) => hub.tasks.list(actor, parseWith(listTasksParamsSchema, camelKeys(params ?? {}))),
  CancelTask: write(async (hub, actor, params) => {
    const p = parseTaskId(params);
    return hub.tasks.cancel(actor, p.id, cancelReason(p.metadata));
  }),
  SubscribeToTask: subscribe(v1Wire),
  CreateTaskPushNotificationConfig: write(push.create),
  GetTaskPushNotificationConfig: push.get,
  ListTaskPushNotificationConfigs: push.list,
  DeleteTaskPushNotificationConfig: write(push.delete),
  GetExtendedAgentCard: extendedCard,
};

const v03: Record<string, Handler> = {
  'message/send': sentAs03(sendFieldOut, send((params) => parseSend(sendParamsIn(params)), { task: taskOut, message: messageOut })),
  'message/stream': sentAs03(sendFieldOut, sendStreaming((params) => parseSend(sendParamsIn(params)), legacyWire)),
  'tasks/get': async (hub, actor, params) => {
    const p = parseTaskId(params);
    return taskOut(await hub.tasks.get(actor, p.id, p.historyLength));
  },
  'tasks/cancel': write(async (hub, actor, params) => {
    const p = parseTaskId(params);
    return taskOut(await hub.tasks.cancel(actor, p.id, cancelReason(p.metadata)));
  }),
  'tasks/resubscribe': subscribe(legacyWire),
  ...push03,
  'agent/getAuthenticatedExtendedCard': extendedCard,
};

/** The methods that check the caller's token in their own statement: a send and a read of one task. */
const CHECK_TOKEN_THEMSELVES = new Set(['SendMessage', 'GetTask', 'message/send', 'tasks/get']);

const table = (version: ProtocolVersion, handlers: Record<string, Handler>): [string, Method][] =>
  Object.entries(handlers).map(([name, handler]) => [name, CHECK_TOKEN_THEMSELVES.has(name) ? { version, handler, checksToken: true } : { version, handler }]);

export const METHODS: ReadonlyMap<string, Method> = new Map([...table('1.0', v1), ...table('0.3', v03)]);
