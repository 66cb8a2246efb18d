/**
 * `GET /v1/a2a/inbox` and `/v1/a2a/sent`: an agent's received or sent direct tasks, a page at a
 * time, as the hub's mailboxes page them (the same scope, order and opaque cursor), in Vorn's
 * item and page shapes. A person (an operator, Vorn's human caller) names one of its agents by
 * `agent_id` and reads its lists; the view decides who may, as for GET /api/inbox?agent=.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { messageOut } from '../../a2a/legacy.js';
import { LEGACY_STATE } from '../../a2a/states.js';
import type { Message, TaskState } from '../../a2a/types.js';
import { parseWith, renamedFields } from '../../a2a/validate.js';
import { absentOn, HubError, invalidParams, isHubError } from '../../errors/hub-error.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import { vornActor } from './tasks.js';
import { jobIdOf } from './wire.js';

/** An agent as the hub's identity service reads it (a dialect reads no store types). */
type AgentRecord = Awaited<ReturnType<Hub['identity']['agentById']>>;

const STATES = ['open', 'all', 'submitted', 'working', 'input-required', 'completed', 'failed', 'canceled', 'rejected'];

const query = z.object({
  state: z.enum(STATES, { error: `must be one of ${STATES.join(', ')}` }).default('open'),
  agent_id: z.string().optional(),
  cursor: z.string().optional(),
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 50' })
    .int('must be a whole number from 1 to 50')
    .min(1, 'must be from 1 to 50')
    .max(50, 'must be from 1 to 50')
    .default(20),
});

/** One item of the hub's mailbox page (hub/mailbox.ts). */
interface MailItem {
  id: string;
  contextId: string;
  state: TaskState;
  from?: string | undefined;
  to?: string | undefined;
  createdAt: string;
  updatedAt: string;
  artifactCount: number;
  lastMessage?: Message;
}

/** The agent whose lists are read: the caller's own, or the one `agent_id` names (an unknown id is not the caller's). */
async function whose(hub: Hub, actor: Actor, agentId: string | undefined, box: string): Promise<string | undefined> {
  if (agentId === undefined) {
    if (actor.caller.kind === 'agent') return undefined;
    throw invalidParams(
      'agent_id',
      `is required: a person reads the ${box} of an agent it operates`,
      `Send ?agent_id=<the agent's id>`,
    );
  }
  try {
    return (await hub.identity.agentById(agentId)).handle;
  } catch (e) {
    if (!isHubError(e) || e.code !== 'AGENT_NOT_FOUND') throw e;
    throw new HubError('FORBIDDEN', `You do not operate an agent with the id '${agentId}'`, {
      hint: 'Send the id of an agent you operate',
      fields: [{ field: 'agent_id', description: 'is not an agent you operate' }],
    });
  }
}

export function mailboxRoutes(scope: FastifyInstance, hub: Hub): void {
  for (const box of ['inbox', 'sent'] as const) {
    scope.get(`/a2a/${box}`, { config: { door: 'rest' } }, async (request) => {
      const actor = await vornActor(hub, request, `The ${box}`);
      const q = parseWith(query, request.query);
      const agent = await whose(hub, actor, q.agent_id, box);
      const page = await hub.mailboxes
        .page(actor.caller, box, {
          ...(agent !== undefined ? { agent } : {}),
          state: q.state,
          limit: q.limit,
          ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
        })
        .catch((e: unknown) => {
          throw renamedFields(e, (field) => (field === 'agent' ? 'agent_id' : field));
        });
      const agents = new Map<string, Promise<AgentRecord | undefined>>();
      const agentOf = (handle: string | undefined) => {
        if (handle === undefined) return Promise.resolve(undefined);
        if (!agents.has(handle)) agents.set(handle, hub.identity.agent(handle).catch(absentOn('AGENT_NOT_FOUND')));
        return agents.get(handle)!;
      };
      const data = await Promise.all(page.data.map((item) => itemOut(hub, actor, item, box, agentOf)));
      return { data, cursor: page.cursor ?? null, has_more: page.hasMore };
    });
  }
}

/** One list item in Vorn's shape; the task is read whole once more for the job its first message names. */
async function itemOut(
  hub: Hub,
  actor: Actor,
  item: MailItem,
  box: 'inbox' | 'sent',
  agentOf: (handle: string | undefined) => Promise<AgentRecord | undefined>,
) {
  const [sender, target, task] = await Promise.all([
    agentOf(item.from),
    agentOf(item.to),
    hub.tasks.get(actor, item.id),
  ]);
  const other = box === 'inbox' ? sender : target;
  return {
    id: item.id,
    context_id: item.contextId,
    state: LEGACY_STATE[item.state],
    sender_id: sender?.id ?? null,
    target_id: target?.id ?? null,
    job_id: jobIdOf(task),
    created_at: item.createdAt,
    updated_at: item.updatedAt,
    artifact_count: item.artifactCount,
    counterparty: other
      ? {
          id: other.id,
          handle: other.handle,
          display_name: other.name ?? other.handle,
          avatar_url: null,
          account_type: 'agent',
        }
      : null,
    last_message: item.lastMessage ? messageOut(item.lastMessage) : null,
  };
}
