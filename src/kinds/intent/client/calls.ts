/**
 * The intent kind's calls at the hub's doors, shared by its CLI (cli.ts) and its MCP tools
 * (mcp.ts) so both send the same bodies: declare at a space's A2A base, list a space's intents,
 * and a worker's actions over REST. Imports only the client: neither loads the hub.
 */
import { randomUUID } from 'node:crypto';
import { LONGEST_HUB_WAIT_S, path, request, rpc, timeoutAround, type Target } from '../../../client/http.js';
import { pageOf } from '../../../client/paging.js';
import { taskOf, type Page, type RestPage, type SendResult, type Task } from '../../../client/wire.js';
import type { IntentRow } from './format.js';

/** Anything that says where to send and as whom: a command's context, or an MCP tool call. */
export interface On {
  target: Target;
}

export interface Declaration {
  title: string;
  why?: string | undefined;
  footprint: string[];
  acceptance?: string[] | undefined;
  priority?: number | undefined;
  force?: boolean | undefined;
}

export const spaceBase = (name: string): string => `spaces/${path(name)}/`;

/** SendMessage at the space's base: the title (and why) as text, the rest as data; `wait` blocks until it lands or needs input. */
export async function declareIntent(on: On, space: string, d: Declaration, wait = false): Promise<Task> {
  const data = {
    footprint: d.footprint,
    ...(d.acceptance ? { acceptance: d.acceptance } : {}),
    ...(d.priority !== undefined ? { priority: d.priority } : {}),
    ...(d.force ? { force: true } : {}),
  };
  const message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: d.why ? `${d.title}\n${d.why}` : d.title }, { data }],
  };
  // A wait is the hub's MUSTER_INTENT_WAIT_S, which the client does not know: the request outlasts the longest one.
  const timeout = wait ? { timeoutMs: timeoutAround(LONGEST_HUB_WAIT_S) } : {};
  const result = (await rpc(
    on.target,
    spaceBase(space),
    'SendMessage',
    { message, configuration: { returnImmediately: !wait } },
    message.messageId,
    timeout,
  )) as SendResult;
  const task = taskOf(result);
  if (!task) throw new Error('the hub answered with a message, not a task');
  return task;
}

/** GET /api/spaces/{name}/intents: `state` claimable (the hub's default), open, all or a task state. */
export async function listIntents(
  on: On,
  space: string,
  query: { state?: string | undefined; limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<IntentRow>> {
  return pageOf((await request(on.target, `api/spaces/${path(space)}/intents`, { query })) as RestPage<IntentRow>);
}

/** A worker action on an intent: POST /api/tasks/{id}/{action}, answering the task. */
export const actOn = async (on: On, id: string, action: string, body: unknown): Promise<Task> =>
  (await request(on.target, `api/tasks/${path(id)}/${action}`, { body })) as Task;
