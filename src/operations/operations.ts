/**
 * The A2A 1.0 operations, door-neutral: each reads its typed request from ProtoJSON, makes its
 * hub call and answers a 1.0 result (or a stream of 1.0 StreamResponse events). The JSON-RPC
 * door (1.0 and 0.3 names), the HTTP+JSON binding, the gRPC binding and the MCP door all call
 * these through `invoke`; none of them calls the hub for an A2A method itself.
 */
import type { Message, Task } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import type { Hub } from '../hub/hub.js';
import { configOut } from '../hub/push.js';
import { READS_NEED_NO_TOKEN } from '../hub/spaces.js';
import { replyOf } from '../hub/replies.js';
import type { Actor } from '../hub/actor.js';
import { trimHistory } from '../hub/task-reads.js';
import { requireToken } from '../identity/caller.js';
import type { CallContext, TaskStream } from './context.js';
import { extendedCard } from './extended-card.js';
import * as parse from './requests.js';

export interface Operation<Request, Result> {
  /** A write needs a caller before its request is even read: no token is a 401, not a validation error. */
  write: boolean;
  parse: (params: unknown) => Request;
  run: (hub: Hub, actor: Actor, request: Request, call: CallContext) => Promise<Result>;
}

const op = <Request, Result>(
  write: boolean,
  parser: (params: unknown) => Request,
  run: Operation<Request, Result>['run'],
): Operation<Request, Result> => ({ write, parse: parser, run });

/** SendMessage's answer: the task, or a Message (a directory search at the hub's base, or an agent's Message reply). */
export type SendResult = { task: Task } | { message: Message };

/** Opens a stream within the caller's slots: the slot is taken before any work is done. */
async function streamed(call: CallContext, open: () => Promise<TaskStream['subscription']>): Promise<TaskStream> {
  const release = call.reserveStream();
  try {
    return { subscription: await open(), release };
  } catch (e) {
    release();
    throw e;
  }
}

const cancelReason = (metadata: Record<string, unknown> | undefined) =>
  typeof metadata?.['reason'] === 'string' ? (metadata['reason'] as string) : undefined;

export const OPERATIONS = {
  /** A task, or at the hub's base a directory search answered with a Message and nothing stored (hub/directory.ts). */
  SendMessage: op(true, parse.parseSend, async (hub, actor, request, call): Promise<SendResult> => {
    if (hub.directory.takes(actor.door, request))
      return { message: await hub.directory.answer(actor.caller, request, call.base) };
    const task = await hub.tasks.send(actor, request, () => call.signal, call.operationKey);
    const reply = replyOf(task); // the agent answered with a Message: that is the answer
    return reply ? { message: reply } : { task };
  }),
  /** The same send, then the task's events until it ends. */
  SendStreamingMessage: op(true, parse.parseSend, (hub, actor, request, call) =>
    streamed(call, async () => {
      if (hub.directory.takes(actor.door, request)) {
        throw new HubError('UNSUPPORTED_OPERATION', 'A directory search is answered with one message, not a stream', {
          hint: 'Send it with SendMessage (message/send in 0.3)',
        });
      }
      // The stream is the wait: the send under it answers at once, whatever returnImmediately says.
      const configuration = Object.assign({}, request.configuration, { returnImmediately: true });
      const task = await hub.tasks.send(actor, Object.assign({}, request, { configuration }));
      // A new task is followed from its opening, so one the hub settled at once streams its whole lifecycle.
      const subscription = await hub.tasks.subscribe(actor, task.id, {
        signal: call.signal,
        refuseTerminal: false,
        fromOpening: request.message.taskId === undefined,
      });
      return Object.assign({}, subscription, {
        snapshot: trimHistory(subscription.snapshot, request.configuration?.historyLength),
      });
    }),
  ),
  GetTask: op(false, parse.parseTask, (hub, actor, request) => hub.tasks.get(actor, request.id, request.historyLength)),
  ListTasks: op(false, parse.parseList, (hub, actor, request) => hub.tasks.list(actor, request)),
  CancelTask: op(true, parse.parseTask, (hub, actor, request) =>
    hub.tasks.cancel(actor, request.id, cancelReason(request.metadata)),
  ),
  /** The task as it stands, then its events; a finished task is refused. */
  SubscribeToTask: op(false, parse.parseTask, (hub, actor, request, call) => {
    const options = {
      signal: call.signal,
      refuseTerminal: true,
      ...(call.lastEventId === undefined ? {} : { lastEventId: call.lastEventId }),
    };
    return streamed(call, () => hub.tasks.subscribe(actor, request.id, options));
  }),
  // The hub reads a push config's own fields (hub/push.ts): the request is passed on as sent.
  CreateTaskPushNotificationConfig: op(
    true,
    (params: unknown) => params,
    async (hub, actor, request) => configOut(await hub.tasks.setPushConfig(actor, request)),
  ),
  GetTaskPushNotificationConfig: op(false, parse.parsePushConfig, async (hub, actor, request) =>
    configOut(await hub.tasks.pushConfig(actor, request.taskId, request.id)),
  ),
  ListTaskPushNotificationConfigs: op(false, parse.parsePushConfigs, async (hub, actor, request) => ({
    configs: (await hub.tasks.pushConfigs(actor, request.taskId)).map(configOut),
    nextPageToken: '',
  })),
  DeleteTaskPushNotificationConfig: op(true, parse.parsePushConfig, async (hub, actor, request) => {
    await hub.tasks.deletePushConfig(actor, request.taskId, request.id);
    return {};
  }),
  GetExtendedAgentCard: op(
    false,
    (params: unknown) => params,
    (hub, actor, _request, call) => extendedCard(hub, actor, call),
  ),
} satisfies Record<string, Operation<any, unknown>>; // any: each operation has its own request type

export type OperationName = keyof typeof OPERATIONS;
type RequestOf<N extends OperationName> = ReturnType<(typeof OPERATIONS)[N]['parse']>;
export type ResultOf<N extends OperationName> = Awaited<ReturnType<(typeof OPERATIONS)[N]['run']>>;

/**
 * Runs an operation on what a door was sent (ProtoJSON params): the write check, then the request
 * read (`translate` first moves another shape, such as a 0.3 request, into ProtoJSON), then the call.
 */
export async function invoke<N extends OperationName>(
  name: N,
  hub: Hub,
  actor: Actor,
  params: unknown,
  call: CallContext,
  translate?: (params: unknown) => unknown,
): Promise<ResultOf<N>> {
  const operation = OPERATIONS[name] as unknown as Operation<RequestOf<N>, ResultOf<N>>;
  if (operation.write)
    requireToken(actor.caller, 'This method', actor.door.kind === 'space' ? READS_NEED_NO_TOKEN : undefined);
  const request = operation.parse(translate ? translate(params) : params);
  return operation.run(hub, actor, request, call);
}
