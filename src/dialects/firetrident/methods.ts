/**
 * The colony's JSON-RPC methods: SendMessage, GetTask, ListTasks and CancelTask in 1.0 shapes,
 * message/send, tasks/get and tasks/cancel in 0.3 shapes (the method name picks the shapes).
 * Each translates its params, runs the hub's operation at the colony's space base (the intent
 * kind decides), and answers the task as the colony's clients read it (wire.ts).
 */
import { sendFieldOut, sendParamsIn, taskOut } from '../../a2a/legacy.js';
import type { Task } from '../../a2a/types.js';
import { renamedFields } from '../../a2a/validate.js';
import type { Dispatch } from '../../doors/a2a/jsonrpc.js';
import { methodTable, type CallContext, type Method } from '../../doors/a2a/methods.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import { invoke, type SendResult } from '../../operations/operations.js';
import { declarable, listable } from './declaration.js';
import { fireErrorAnswer } from './errors.js';
import { fireTask } from './wire.js';

type Handler = Method['handler'];

/** The colony the call addresses (its space base). */
const colonyOf = (actor: Actor): string => (actor.door.kind === 'space' ? actor.door.name : '');

/** A task of the colony as its clients read it. */
const shown = (actor: Actor, call: CallContext) => (task: Task) => fireTask(task, colonyOf(actor), call.base);

/** The intent a declaration answers (a space's base answers every declaration with a task, never a message). */
export function declaredTask(result: SendResult): Task {
  if (!('task' in result)) throw new Error('a space base answered a declaration with a message');
  return result.task;
}

/** SendMessage at the colony: the colony's refusals first, then the intent kind's; `from03` moves 0.3 params first. */
async function declare(hub: Hub, actor: Actor, params: unknown, call: CallContext, from03: boolean): Promise<Task> {
  const translate = (p: unknown) => declarable(from03 ? sendParamsIn(p) : p, colonyOf(actor));
  const result = await invoke('SendMessage', hub, actor, params, call, translate).catch((e: unknown) => {
    throw from03 ? renamedFields(e, sendFieldOut) : e;
  });
  return shown(actor, call)(declaredTask(result));
}

const v1: Record<string, Handler> = {
  SendMessage: async (hub, actor, params, call) => ({ task: await declare(hub, actor, params, call, false) }),
  GetTask: (hub, actor, params, call) => invoke('GetTask', hub, actor, params, call).then(shown(actor, call)),
  ListTasks: async (hub, actor, params, call) => {
    const page = await invoke('ListTasks', hub, actor, params, call, (p) => listable(p, colonyOf(actor)));
    return Object.assign({}, page, { tasks: page.tasks.map(shown(actor, call)) });
  },
  CancelTask: (hub, actor, params, call) => invoke('CancelTask', hub, actor, params, call).then(shown(actor, call)),
};

const v03: Record<string, Handler> = {
  'message/send': async (hub, actor, params, call) => taskOut(await declare(hub, actor, params, call, true)),
  'tasks/get': async (hub, actor, params, call) => taskOut((await v1['GetTask']!(hub, actor, params, call)) as Task),
  'tasks/cancel': async (hub, actor, params, call) =>
    taskOut((await v1['CancelTask']!(hub, actor, params, call)) as Task),
};

export const FIRETRIDENT_DISPATCH: Dispatch = {
  methods: new Map([...methodTable('1.0', v1), ...methodTable('0.3', v03)]),
  methodHint:
    'This colony answers SendMessage, GetTask, ListTasks and CancelTask (1.0), and message/send, tasks/get and tasks/cancel (0.3); it does not stream: poll GetTask',
  errorAnswer: fireErrorAnswer,
};
