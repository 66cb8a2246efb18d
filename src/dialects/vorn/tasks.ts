/**
 * Vorn's REST routes over one task: `GET /v1/a2a/tasks/{id}` (its sender, its target, or the
 * operator of either: the view's readers of a direct task) and `POST /v1/a2a/tasks/{id}/respond`
 * (the target's answer, the direct kind's own respond). A task of another kind is not Vorn's: it
 * is not found here, whoever may read it natively.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Task } from '../../a2a/types.js';
import { HubError, isHubError } from '../../errors/hub-error.js';
import type { Actor } from '../../hub/actor.js';
import type { Hub } from '../../hub/hub.js';
import { requireToken } from '../../identity/caller.js';
import { callerOf, idempotencyKey } from '../../doors/http/context.js';
import { VornRefusal } from './errors.js';
import { respondIn } from './respond-body.js';
import { vornTask } from './wire.js';

const HUB_DOOR = { kind: 'hub' } as const;
const config = { door: 'rest' as const };

const kindOf = (task: Task) => (task.metadata?.['muster'] as { kind?: string } | undefined)?.kind;

/** The caller as the hub's base sees it; no token is a 401 before anything is read. */
export async function vornActor(hub: Hub, request: FastifyRequest, what: string): Promise<Actor> {
  const caller = await callerOf(hub, request);
  requireToken(caller, what);
  return { caller, door: HUB_DOOR };
}

/** A direct task the actor may read, else not found (as for a task it may not see). */
async function directTask(hub: Hub, actor: Actor, id: string): Promise<Task> {
  const task = await hub.tasks.get(actor, id);
  if (kindOf(task) !== 'direct')
    throw new HubError('TASK_NOT_FOUND', `No A2A task ${id} here`, {
      hint: 'These routes serve the direct tasks sent to an agent at /v1/a2a/{handle}',
    });
  return task;
}

/** A move the task's state no longer allows is Vorn's INVALID_TRANSITION, carrying the state it is in. */
const invalidTransition = (error: unknown): never => {
  if (isHubError(error) && error.code === 'CONFLICT' && error.meta['currentState'] !== undefined)
    throw new VornRefusal('INVALID_TRANSITION', 409, error);
  throw error;
};

export function taskRoutes(scope: FastifyInstance, hub: Hub): void {
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  scope.get('/a2a/tasks/:id', { config }, async (request) => {
    const actor = await vornActor(hub, request, 'Reading a task');
    return vornTask(await directTask(hub, actor, idOf(request)));
  });

  scope.post('/a2a/tasks/:id/respond', { config }, async (request) => {
    const actor = await vornActor(hub, request, 'Responding to a task');
    const id = idOf(request);
    const task = await directTask(hub, actor, id);
    // Who may respond is told before what is wrong with the body (the kind checks it again).
    const target = (task.metadata?.['muster'] as { to?: string }).to;
    if (actor.caller.kind !== 'agent' || actor.caller.handle !== target)
      throw new HubError('FORBIDDEN', 'Only the agent a task was sent to may respond to it', {
        hint: `Read the task with GET /v1/a2a/tasks/${id}`,
      });
    const body = respondIn(request.body);
    const updated = await hub.tasks.act(actor, id, 'respond', body, idempotencyKey(request)).catch(invalidTransition);
    return vornTask(updated);
  });
}
