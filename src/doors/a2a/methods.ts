/**
 * Every A2A JSON-RPC method, 1.0 and 0.3 names, mapped to the hub's services. The method
 * name chooses the shapes: 1.0 names answer ProtoJSON, 0.3 names answer 0.3 objects.
 */
import { listTasksParamsSchema, sendMessageParamsSchema, taskIdParamsSchema } from '../../a2a/schemas.js';
import { sendParamsIn, streamEventOut, taskOut } from '../../a2a/legacy.js';
import type { SendMessageParams, StreamResponse } from '../../a2a/types.js';
import { camelKeys, parseWith } from '../../a2a/validate.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { Actor, Subscription } from '../../hub/tasks.js';

export type ProtocolVersion = '1.0' | '0.3';

/** What the HTTP request adds to a call: its end (client gone) and SSE's Last-Event-ID. */
export interface CallContext {
  signal: AbortSignal;
  lastEventId?: number;
}

type Handler = (hub: Hub, actor: Actor, params: unknown, call: CallContext) => Promise<unknown>;

/** A method's answer that is a stream of events rather than one result. */
export class EventStream {
  constructor(
    readonly subscription: Subscription,
    /** The wire shape of each StreamResponse for this method's protocol version. */
    readonly shape: (event: StreamResponse) => unknown,
  ) {}
}

const v1Shape = (event: StreamResponse): unknown => event;

export interface Method {
  version: ProtocolVersion;
  handler: Handler;
}

const parseSend = (params: unknown) => parseWith(sendMessageParamsSchema, camelKeys(params)) as SendMessageParams;
const parseTaskId = (params: unknown) => parseWith(taskIdParamsSchema, camelKeys(params));
const cancelReason = (metadata: Record<string, unknown> | undefined) =>
  typeof metadata?.['reason'] === 'string' ? (metadata['reason'] as string) : undefined;

// Capabilities the card does not declare yet answer their standard errors.
const notYet = (code: 'UNSUPPORTED_OPERATION' | 'PUSH_NOTIFICATION_NOT_SUPPORTED', what: string): Handler => async () => {
  throw new HubError(code, `${what} is not supported by this hub yet`, { hint: 'Poll with GetTask or ListTasks' });
};
const push = notYet('PUSH_NOTIFICATION_NOT_SUPPORTED', 'Push notification');
const extendedCard: Handler = async () => {
  throw new HubError('UNSUPPORTED_OPERATION', 'This hub has no extended agent card', { hint: 'Read the public card at .well-known/agent-card.json' });
};

/** A write needs a caller before its params are even read: no token is a 401, not a validation error. */
const write =
  (handler: Handler): Handler =>
  async (hub, actor, params, call) => {
    if (actor.caller.kind === 'anonymous') {
      throw new HubError('UNAUTHENTICATED', 'This method changes tasks and needs a bearer token', { hint: 'Send Authorization: Bearer <agent token>; register with POST /api/agents' });
    }
    return handler(hub, actor, params, call);
  };

/** SendStreamingMessage: the same send, then the task's events until it ends. */
const sendStreaming = (parse: (params: unknown) => SendMessageParams, shape: EventStream['shape']): Handler =>
  write(async (hub, actor, params, call) => {
    const task = await hub.tasks.send(actor, parse(params));
    return new EventStream(await hub.tasks.subscribe(actor, task.id, { signal: call.signal, refuseTerminal: false }), shape);
  });

/** SubscribeToTask: the task as it stands, then its events; a finished task is refused. */
const subscribe = (shape: EventStream['shape']): Handler => async (hub, actor, params, call) => {
  const p = parseTaskId(params);
  const options = { signal: call.signal, refuseTerminal: true, ...(call.lastEventId === undefined ? {} : { lastEventId: call.lastEventId }) };
  return new EventStream(await hub.tasks.subscribe(actor, p.id, options), shape);
};

const v1: Record<string, Handler> = {
  SendMessage: write(async (hub, actor, params) => ({ task: await hub.tasks.send(actor, parseSend(params)) })),
  SendStreamingMessage: sendStreaming(parseSend, v1Shape),
  GetTask: async (hub, actor, params) => {
    const p = parseTaskId(params);
    return hub.tasks.get(actor, p.id, p.historyLength);
  },
  ListTasks: async (hub, actor, params) => hub.tasks.list(actor, parseWith(listTasksParamsSchema, camelKeys(params ?? {}))),
  CancelTask: write(async (hub, actor, params) => {
    const p = parseTaskId(params);
    return hub.tasks.cancel(actor, p.id, cancelReason(p.metadata));
  }),
  SubscribeToTask: subscribe(v1Shape),
  CreateTaskPushNotificationConfig: push,
  GetTaskPushNotificationConfig: push,
  ListTaskPushNotificationConfigs: push,
  DeleteTaskPushNotificationConfig: push,
  GetExtendedAgentCard: extendedCard,
};

const v03: Record<string, Handler> = {
  'message/send': write(async (hub, actor, params) => taskOut(await hub.tasks.send(actor, parseSend(sendParamsIn(params))))),
  'message/stream': sendStreaming((params) => parseSend(sendParamsIn(params)), streamEventOut),
  'tasks/get': async (hub, actor, params) => {
    const p = parseTaskId(params);
    return taskOut(await hub.tasks.get(actor, p.id, p.historyLength));
  },
  'tasks/cancel': write(async (hub, actor, params) => {
    const p = parseTaskId(params);
    return taskOut(await hub.tasks.cancel(actor, p.id, cancelReason(p.metadata)));
  }),
  'tasks/resubscribe': subscribe(streamEventOut),
  'tasks/pushNotificationConfig/set': push,
  'tasks/pushNotificationConfig/get': push,
  'tasks/pushNotificationConfig/list': push,
  'tasks/pushNotificationConfig/delete': push,
  'agent/getAuthenticatedExtendedCard': extendedCard,
};

const table = (version: ProtocolVersion, handlers: Record<string, Handler>): [string, Method][] =>
  Object.entries(handlers).map(([name, handler]) => [name, { version, handler }]);

export const METHODS: ReadonlyMap<string, Method> = new Map([...table('1.0', v1), ...table('0.3', v03)]);
