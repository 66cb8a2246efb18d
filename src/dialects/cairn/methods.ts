/**
 * Cairn's JSON-RPC methods: SendMessage, GetTask, ListTasks and CancelTask on review tasks, in
 * Cairn's shapes, each calling the A2A operation it translates; the other A2A methods answer
 * the standard "not here" errors Cairn's clients expect. Only reviews are found here: another
 * task's id is not found, as at Cairn.
 */
import { z } from 'zod';
import { isJsonObject, type Message, type SendMessageConfiguration, type Task } from '../../a2a/types.js';
import { camelKeys, parseWith } from '../../a2a/validate.js';
import type { Dispatch } from '../../doors/a2a/jsonrpc.js';
import { errorAnswer } from '../../doors/a2a/jsonrpc.js';
import type { Method } from '../../doors/a2a/methods.js';
import { HubError, isHubError } from '../../errors/hub-error.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import { requireToken } from '../../identity/caller.js';
import { REVIEW_OPEN } from '../../kinds/review/request.js';
import { reviewModule } from '../../kinds/review/review.js';
import type { CallContext } from '../../operations/context.js';
import { invoke } from '../../operations/operations.js';
import { parseSend, parseTask } from '../../operations/requests.js';
import { onlyData } from '../../wire/skill-call.js';
import { refusalMessage } from './errors.js';
import { cairnTask, reviewOf } from './wire.js';

type Handler = Method['handler'];

const notAReview = (id: string) =>
  new HubError('TASK_NOT_FOUND', `No review task ${id} here`, {
    hint: 'ListTasks lists the review tasks; open calls are read at api/a2a-calls',
  });

/** A review task as the caller may read it (GetTask at the hub's base), in Cairn's shape. */
export async function readReview(hub: Hub, actor: Actor, id: string): Promise<Task> {
  const task = await hub.tasks.get(actor, id);
  const review = reviewOf(task);
  if (!review) throw notAReview(id);
  return cairnTask(task, review);
}

/** A post's data part `{request, approval}` as the review kind's opening skill call, and its operation id. */
function posting(message: Message): { data: unknown; operationId: string | undefined } {
  const data = onlyData(message, 'A Cairn post');
  const request = isJsonObject(data) ? data['request'] : undefined;
  const operationId = isJsonObject(request) ? request['operation_id'] : undefined;
  return {
    data: { skill: REVIEW_OPEN, args: data },
    operationId: typeof operationId === 'string' ? operationId : undefined,
  };
}

/** Cairn never blocks until the deadline and pushes nothing. */
function neverBlocking(configuration: SendMessageConfiguration | undefined): SendMessageConfiguration {
  if (configuration?.taskPushNotificationConfig)
    throw new HubError('PUSH_NOTIFICATION_NOT_SUPPORTED', 'This base sends no push notifications', {
      hint: 'Leave out taskPushNotificationConfig and read the task with GetTask',
    });
  return Object.assign({}, configuration, { returnImmediately: true });
}

/** The call's context with the send's own idempotency key (its getters kept: nothing is read before it is asked for). */
const keyed = (call: CallContext, operationKey: string | undefined): CallContext =>
  operationKey === undefined ? call : Object.assign(Object.create(call) as CallContext, { operationKey });

/**
 * A post (no taskId: its data part `{request, approval}`) or a contribution (a review's taskId),
 * answered with the review in Cairn's shape. `key`: the write's idempotency key, when the caller
 * gave one (an Idempotency-Key); a post's operation_id otherwise.
 */
export async function submit(hub: Hub, actor: Actor, params: unknown, call: CallContext, key?: string): Promise<Task> {
  requireToken(actor.caller, 'Posting or contributing', 'Reads need none');
  const request = parseSend(params);
  const { message } = request;
  const configuration = neverBlocking(request.configuration);
  if (message.taskId !== undefined) await readReview(hub, actor, message.taskId);
  const post = message.taskId === undefined ? posting(message) : undefined;
  const sent = post ? Object.assign({}, message, { parts: [{ data: post.data }] }) : message;
  const result = await invoke(
    'SendMessage',
    hub,
    actor,
    { message: sent, configuration },
    keyed(call, key ?? post?.operationId),
  );
  const task = 'task' in result ? result.task : undefined;
  const review = task && reviewOf(task);
  if (!task || !review) throw notAReview(message.taskId ?? '(new)');
  return cairnTask(task, review);
}

/** SendMessage: submit, with a refusal of what was sent answered as an agent Message (errors.ts). */
const send: Handler = async (hub, actor, params, call) => {
  try {
    return { task: await submit(hub, actor, params, call) };
  } catch (e) {
    const taskId = isJsonObject(params) && isJsonObject(params['message']) ? params['message']['taskId'] : undefined;
    const refusal = isHubError(e) ? refusalMessage(e, typeof taskId === 'string' ? taskId : undefined) : undefined;
    if (refusal) return { message: refusal };
    throw e;
  }
};

/** Cairn's task states by their short names; the A2A names are taken too. */
const STATES = {
  WORKING: 'TASK_STATE_WORKING',
  COMPLETED: 'TASK_STATE_COMPLETED',
  FAILED: 'TASK_STATE_FAILED',
} as const;
const STATE_NAMES: [string, ...string[]] = ['TASK_STATE_UNSPECIFIED', ...Object.keys(STATES), ...Object.values(STATES)];

const listSchema = z.object({
  status: z.enum(STATE_NAMES, 'must be WORKING, COMPLETED or FAILED').optional(),
  pageSize: z.int('must be a whole number').min(1, 'must be 1 to 50').max(50, 'must be 1 to 50').optional(),
  pageToken: z.string().optional(),
  contextId: z.string().optional(),
  includeArtifacts: z.boolean().optional(),
});

const listTasks: Handler = async (hub, actor, params) => {
  const query = parseWith(listSchema, camelKeys(params ?? {}));
  const named = query.status === 'TASK_STATE_UNSPECIFIED' ? undefined : query.status; // the SDK's "any state"
  const status = named === undefined ? undefined : (STATES[named as keyof typeof STATES] ?? named);
  const page = await hub.tasks.list(
    actor,
    Object.assign({}, query, status === undefined ? {} : { status: status as Task['status']['state'] }),
    [reviewModule.name],
  );
  return Object.assign({}, page, { tasks: page.tasks.map((t) => cairnTask(t, reviewOf(t)!)) });
};

/** Public tasks are never canceled: an anonymous caller is told so, an agent hears the kind's own refusal. */
const cancelTask: Handler = async (hub, actor, params, call) => {
  const { id } = parseTask(params);
  await readReview(hub, actor, id);
  if (actor.caller.kind === 'anonymous')
    throw new HubError('TASK_NOT_CANCELABLE', `Review ${id} is public; it cannot be canceled or removed`, {
      hint: 'It ends at its deadline; read the outcome then with GetTask',
    });
  const task = await invoke('CancelTask', hub, actor, params, call);
  return cairnTask(task, reviewOf(task)!);
};

const refused =
  (error: () => HubError): Handler =>
  () =>
    Promise.reject(error());
const noStreams = refused(
  () =>
    new HubError('UNSUPPORTED_OPERATION', 'This base does not stream', {
      hint: 'Send with SendMessage and follow up with GetTask',
    }),
);
const noPush = refused(
  () =>
    new HubError('PUSH_NOTIFICATION_NOT_SUPPORTED', 'This base sends no push notifications', {
      hint: 'Read the task with GetTask',
    }),
);

const handlers: Record<string, Handler> = {
  SendMessage: send,
  GetTask: (hub, actor, params) => readReview(hub, actor, parseTask(params).id),
  ListTasks: listTasks,
  CancelTask: cancelTask,
  SendStreamingMessage: noStreams,
  SubscribeToTask: noStreams,
  CreateTaskPushNotificationConfig: noPush,
  GetTaskPushNotificationConfig: noPush,
  ListTaskPushNotificationConfigs: noPush,
  DeleteTaskPushNotificationConfig: noPush,
  GetExtendedAgentCard: refused(
    () => new HubError('EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'This base has no extended card; its public card is all'),
  ),
};

export const CAIRN_DISPATCH: Dispatch = {
  methods: new Map(Object.entries(handlers).map(([name, handler]) => [name, { version: '1.0', handler }])),
  methodHint: 'SendMessage, GetTask, ListTasks or CancelTask',
  errorAnswer,
};
