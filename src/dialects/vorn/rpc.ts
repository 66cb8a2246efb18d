/**
 * Vorn's two JSON-RPC endpoints, in A2A 0.3 names and shapes. At an agent's (`/v1/a2a/{handle}`)
 * `message/send` opens a direct task to its inbox (or follows one up), `tasks/get` and
 * `tasks/cancel` read and cancel it: the A2A operations at the agent's base, so the direct kind's
 * rules, limits and rate limits hold as they do natively. The platform's (`/v1/a2a`) is the hub's
 * directory: `message/send` is answered with a Message and nothing is stored, so it has no tasks.
 */
import { randomUUID } from 'node:crypto';
import { messageOut, sendFieldOut, sendParamsIn } from '../../a2a/legacy.js';
import { isJsonObject, type JsonObject, type Message, type Part } from '../../a2a/types.js';
import { renamedFields } from '../../a2a/validate.js';
import type { Dispatch } from '../../doors/a2a/jsonrpc.js';
import type { Method } from '../../doors/a2a/methods.js';
import { HubError } from '../../errors/hub-error.js';
import { DIRECTORY_SEARCH } from '../../hub/directory.js';
import { requireToken } from '../../identity/caller.js';
import { invoke, type SendResult } from '../../operations/operations.js';
import { vornRpcError } from './errors.js';
import { checkVornMessage, vornTask } from './wire.js';

type Handler = Method['handler'];

const historyLengthOf = (params: unknown): number | undefined =>
  isJsonObject(params) && typeof params['historyLength'] === 'number' ? params['historyLength'] : undefined;

const idOnly = (params: unknown): JsonObject => ({ id: isJsonObject(params) ? params['id'] : undefined });

const sendOut = (result: SendResult) => ('task' in result ? vornTask(result.task) : messageOut(result.message));

const send: Handler = async (hub, actor, params, call) => {
  requireToken(actor.caller, 'message/send'); // before the body is read: no token is a 401
  checkVornMessage(isJsonObject(params) ? params['message'] : undefined, 'message');
  const result = await invoke('SendMessage', hub, actor, params, call, sendParamsIn).catch((e: unknown) => {
    throw renamedFields(e, sendFieldOut);
  });
  return sendOut(result);
};

// The whole task is read, so its job is found in its first message; the history is trimmed after.
const get: Handler = async (hub, actor, params, call) =>
  vornTask(await invoke('GetTask', hub, actor, idOnly(params), call), historyLengthOf(params));

const cancel: Handler = async (hub, actor, params, call) =>
  vornTask(await invoke('CancelTask', hub, actor, params, call));

const methods = (table: Record<string, Method>) => new Map(Object.entries(table));
const METHOD_HINT = 'This endpoint answers message/send, tasks/get and tasks/cancel (A2A 0.3)';

/** An agent's endpoint: its direct tasks. */
export const AGENT_DISPATCH: Dispatch = {
  methods: methods({
    'message/send': { version: '0.3', handler: send, checksToken: true },
    'tasks/get': { version: '0.3', handler: get, checksToken: true },
    'tasks/cancel': { version: '0.3', handler: cancel },
  }),
  methodHint: METHOD_HINT,
  errorAnswer: vornRpcError,
};

/**
 * A message to the platform as a directory search: a data part naming the skill is passed on as it
 * is; otherwise a data part's `q`, `skill` and `tag`, or else the text, are what is searched for.
 */
function searchOf(message: unknown): Part {
  const parts = (isJsonObject(message) && Array.isArray(message['parts']) ? message['parts'] : []).filter(isJsonObject);
  const data = parts.map((p) => p['data']).find(isJsonObject);
  if (data?.['skill'] === DIRECTORY_SEARCH) return { data };
  const q = parts
    .flatMap((p) => (typeof p['text'] === 'string' ? [p['text']] : []))
    .join(' ')
    .trim();
  const args = data ?? (q ? { q } : {});
  return { data: { skill: DIRECTORY_SEARCH, args } };
}

const noTasks = (params: unknown): never => {
  throw new HubError(
    'TASK_NOT_FOUND',
    `The platform agent keeps no tasks: ${String(idOnly(params)['id'])} is not one`,
    {
      hint: "Tasks are an agent's: read them at /v1/a2a/{handle} or GET /v1/a2a/tasks/{id}",
    },
  );
};

const directory: Handler = async (hub, actor, params, call) => {
  requireToken(actor.caller, 'message/send');
  const message = isJsonObject(params) ? params['message'] : undefined;
  if (isJsonObject(message) && message['taskId'] !== undefined) noTasks({ id: message['taskId'] });
  const contextId =
    isJsonObject(message) && typeof message['contextId'] === 'string' ? message['contextId'] : undefined;
  const search: Message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [searchOf(message)],
    ...(contextId ? { contextId } : {}),
  };
  const result = await invoke('SendMessage', hub, actor, { message: search }, call);
  if (!('message' in result)) throw new Error('a directory search opened a task');
  return directoryOut(messageOut(result.message), call.base);
};

/** The directory's answer with each agent as Vorn lists one: its id, handle, name, and its Vorn card and endpoint. */
function directoryOut(answer: JsonObject, base: string): JsonObject {
  const parts = (answer['parts'] as JsonObject[]).map((part) => {
    const data = part['data'];
    if (!isJsonObject(data) || !Array.isArray(data['agents'])) return part;
    const agents = data['agents'].filter(isJsonObject).map((a) => ({
      id: a['agentId'],
      handle: a['handle'],
      display_name: a['name'] ?? a['handle'],
      ...(a['description'] !== undefined ? { description: a['description'] } : {}),
      ...(a['skills'] !== undefined ? { skills: a['skills'] } : {}),
      card_url: `${base}v1/agents/${String(a['handle'])}/card`,
      a2a_url: `${base}v1/a2a/${String(a['handle'])}`,
    }));
    return Object.assign({}, part, { data: { agents, has_more: data['hasMore'] === true } });
  });
  return Object.assign({}, answer, { parts });
}

/** The platform's endpoint: the directory, which stores nothing. */
export const PLATFORM_DISPATCH: Dispatch = {
  methods: methods({
    'message/send': { version: '0.3', handler: directory },
    'tasks/get': { version: '0.3', handler: async (_hub, _actor, params) => noTasks(params) },
    'tasks/cancel': { version: '0.3', handler: async (_hub, _actor, params) => noTasks(params) },
  }),
  methodHint: METHOD_HINT,
  errorAnswer: vornRpcError,
};
