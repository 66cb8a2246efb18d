/**
 * The JSON-RPC methods KLYPIX's clients call, A2A 0.3: message/send, message/stream, tasks/get
 * and tasks/cancel, each over the hub's own operation at the memory base (so the memory kind's
 * rules, the view and the quotas hold as at /memory/). A send is translated in (calls.ts) after
 * the 0.3 params are read as 1.0; every answer is translated out (answers.ts, stream.ts).
 */
import { messageOut, sendFieldOut, sendParamsIn } from '../../a2a/legacy.js';
import { isJsonObject, type Task } from '../../a2a/types.js';
import { renamedFields } from '../../a2a/validate.js';
import { absentOn } from '../../errors/hub-error.js';
import type { Method } from '../../doors/a2a/methods.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import { requireToken } from '../../identity/caller.js';
import { MEMORY } from '../../kinds/memory/memory.js';
import { textField } from '../../kinds/memory/refusals.js';
import type { CallContext } from '../../operations/context.js';
import { invoke, type SendResult } from '../../operations/operations.js';
import { taskOut, waitingOf } from './answers.js';
import { partsIn, type Waiting } from './calls.js';
import { klypixStream } from './stream.js';

/** Where every KLYPIX call goes: the memory kind's own base. */
export const MEMORY_DOOR: Door = { kind: 'base', name: MEMORY };

/** What the task a follow-up continues waits for; undefined when it waits for nothing (or is not the caller's to see). */
async function waitingFor(hub: Hub, actor: Actor, taskId: unknown, call: CallContext): Promise<Waiting | undefined> {
  if (typeof taskId !== 'string') return undefined;
  const task = await invoke('GetTask', hub, actor, { id: taskId }, call).catch(absentOn('TASK_NOT_FOUND'));
  return task && waitingOf(task as Task);
}

/**
 * The 0.3 send params as the memory kind's 1.0 request, and how its refusals name fields where
 * the caller sent them: a file part's as 0.3 spells them, and plain words made into a data part
 * at the words.
 */
async function sendIn(hub: Hub, actor: Actor, params: unknown, call: CallContext) {
  const sent = sendParamsIn(params);
  if (!isJsonObject(sent) || !isJsonObject(sent['message'])) return { request: sent, as03 }; // the request's own check refuses it
  const message = sent['message'];
  const waiting = await waitingFor(hub, actor, message['taskId'], call);
  const handle = actor.caller.kind === 'agent' ? actor.caller.handle : '';
  const { parts, fromWords } = partsIn(message['parts'], handle, waiting);
  const words = textField(Array.isArray(message['parts']) ? message['parts'].length : 0);
  const named = fromWords
    ? (e: unknown) => as03(renamedFields(e, (f) => f.replace(/^message\.parts\[0\]\.data\b.*/, words)))
    : as03;
  return { request: { ...sent, message: { ...message, parts } }, as03: named };
}

/** Refusals name a file part's fields as 0.3 spells them. */
const as03 = (e: unknown): never => {
  throw renamedFields(e, sendFieldOut);
};

const send: Method['handler'] = async (hub, actor, params, call) => {
  requireToken(actor.caller, 'A KLYPIX call');
  const translated = await sendIn(hub, actor, params, call).catch(as03);
  const result: SendResult = await invoke('SendMessage', hub, actor, translated.request, call).catch(translated.as03);
  return 'task' in result ? taskOut(result.task) : messageOut(result.message);
};

const stream: Method['handler'] = async (hub, actor, params, call) => {
  requireToken(actor.caller, 'A KLYPIX call');
  const translated = await sendIn(hub, actor, params, call).catch(as03);
  const opened = await invoke('SendStreamingMessage', hub, actor, translated.request, call).catch(translated.as03);
  return klypixStream(opened);
};

export const KLYPIX_METHODS: ReadonlyMap<string, Method> = new Map<string, Method>([
  ['message/send', { version: '0.3', handler: send }],
  ['message/stream', { version: '0.3', handler: stream }],
  [
    'tasks/get',
    {
      version: '0.3',
      handler: async (hub, actor, params, call) => taskOut(await invoke('GetTask', hub, actor, params, call)),
    },
  ],
  [
    'tasks/cancel',
    {
      version: '0.3',
      handler: async (hub, actor, params, call) => taskOut(await invoke('CancelTask', hub, actor, params, call)),
    },
  ],
]);
