import { randomUUID } from 'node:crypto';
import { stateLabel } from '../../a2a/states.js';
import type { Artifact, Message } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import { HubError, invalidParams } from '../../errors/hub-error.js';
import type { StoredTask } from '../../store/store.js';
import type { ArtifactChunk, Change, KindContext } from '../../hub/kind.js';
import { checkParts, LIMITS } from '../../wire/limits.js';
import { replyChange } from '../../hub/replies.js';
import { agentMessage } from '../message-body.js';
import { respondBody, type RespondBody } from './respond-body.js';
import { RESPOND_TRANSITIONS } from './transitions.js';

/**
 * The target's answer to a direct task: a state, a message, artifacts whole or in chunks; or,
 * for a new task, a plain Message (`reply`) that is the whole answer.
 */
export function respond(ctx: KindContext, task: StoredTask, body: unknown): Change {
  const { record } = task;
  if (ctx.caller.kind !== 'agent' || ctx.caller.handle !== record.target) {
    throw new HubError('FORBIDDEN', 'Only the agent a task was sent to may respond to it', {
      hint: `Only the target responds; read the task with GET /api/tasks/${record.id}`,
    });
  }
  const input = parseWith(respondBody, body);
  if (input.expectedState && input.expectedState !== record.state) {
    throw conflict(record.state, `The task is ${record.state}, not ${input.expectedState}; nothing was changed`);
  }
  if (input.reply) return reply(task, agentMessage(input.reply, 'reply.parts'));
  const moves = RESPOND_TRANSITIONS[record.state] ?? [];
  if (input.state ? !moves.includes(input.state) : moves.length === 0) {
    throw conflict(
      record.state,
      `A task in ${record.state} cannot move to ${input.state ?? 'anything'}; nothing was changed`,
    );
  }
  const message = input.message && agentMessage(input.message, 'message.parts');
  const artifacts: Artifact[] = (input.artifacts ?? []).map((a, i) => {
    checkParts(a.parts, `artifacts[${i}].parts`);
    return Object.assign({}, a, { artifactId: a.artifactId ?? randomUUID() });
  });
  const change: Change = { messages: message ? [message] : [], artifacts };
  if (input.state) change.state = input.state;
  if (input.state && message) change.statusMessage = message;
  if (input.chunks) change.chunks = chunks(task, input.chunks);
  return change;
}

/** A Message reply ends a new task at once: only one the target has not answered yet. */
function reply(task: StoredTask, message: Message): Change {
  const { record } = task;
  const answered = task.artifacts.length > 0 || task.history.some((m) => m.role === 'ROLE_AGENT');
  if (record.state !== 'TASK_STATE_SUBMITTED' || answered) {
    throw conflict(
      record.state,
      `A reply answers a new task; task ${record.id} is ${record.state}${answered ? ' and answered already' : ''}: nothing was changed`,
      'Answer it with state, message, artifacts or chunks',
    );
  }
  return replyChange(message);
}

/** The chunks as a Change carries them: an appended chunk must follow a piece of its artifact, and an artifact stays bounded. */
function chunks(task: StoredTask, input: NonNullable<RespondBody['chunks']>): ArtifactChunk[] {
  const partsOf = new Map(task.artifacts.map((a) => [a.artifactId, a.parts.length]));
  return input.map(({ append, lastChunk, ...artifact }, i) => {
    checkParts(artifact.parts, `chunks[${i}].parts`);
    const before = partsOf.get(artifact.artifactId);
    if (append && before === undefined) {
      throw invalidParams(
        `chunks[${i}].append`,
        `is true, but task ${task.record.id} has no artifact '${artifact.artifactId}' to add to`,
        'Send its first chunk without append (or with append: false)',
      );
    }
    const parts = (append ? before! : 0) + artifact.parts.length;
    if (parts > LIMITS.partsPerArtifact) {
      throw invalidParams(
        `chunks[${i}]`,
        `would make artifact '${artifact.artifactId}' hold ${parts} parts; at most ${LIMITS.partsPerArtifact} are kept`,
        'Start another artifact',
      );
    }
    partsOf.set(artifact.artifactId, parts);
    return { artifact, append: append === true, lastChunk: lastChunk === true };
  });
}

const conflict = (
  state: StoredTask['record']['state'],
  message: string,
  hint = 'Read the task again and respond from its current state',
) => new HubError('CONFLICT', message, { meta: { currentState: state, state: stateLabel(state) }, hint });
