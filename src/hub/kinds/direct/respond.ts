import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { partSchema, stateName } from '../../../a2a/schemas.js';
import { stateLabel } from '../../../a2a/states.js';
import type { Artifact, Message } from '../../../a2a/types.js';
import { parseWith } from '../../../a2a/validate.js';
import { HubError } from '../../../errors/hub-error.js';
import type { StoredTask } from '../../../store/store.js';
import type { Change, KindContext } from '../../kind.js';
import { checkParts, LIMITS } from '../../limits.js';
import { RESPOND_STATES, RESPOND_TRANSITIONS } from './transitions.js';

const respondBody = z
  .object({
    state: stateName.refine((s) => (RESPOND_STATES as readonly string[]).includes(s), {
      message: `must be one of ${RESPOND_STATES.join(', ')}`,
    }),
    // A Message and Artifacts are A2A objects: unknown fields in them are ignored, as on the A2A
    // door (a2a/schemas.ts); the body around them is Muster's own and refuses unknown fields.
    message: z
      .object({ messageId: z.string().min(1).max(200).optional(), parts: z.array(partSchema).min(1), metadata: z.record(z.string(), z.unknown()).optional() })
      .optional(),
    artifacts: z
      .array(
        z
          .object({
            artifactId: z.string().min(1).max(200).optional(),
            name: z.string().max(200).optional(),
            description: z.string().max(2000).optional(),
            parts: z.array(partSchema).min(1),
            metadata: z.record(z.string(), z.unknown()).optional(),
          }),
      )
      .max(LIMITS.artifactsPerWrite)
      .optional(),
    expectedState: stateName.optional(),
  })
  .strict();

/** The target's answer to a direct task: a state, and optionally a message and artifacts. */
export function respond(ctx: KindContext, task: StoredTask, body: unknown): Change {
  const { record } = task;
  if (ctx.caller.kind !== 'agent' || ctx.caller.handle !== record.target) {
    throw new HubError('FORBIDDEN', 'Only the agent a task was sent to may respond to it', { hint: `Only the target responds; read the task with GET /api/tasks/${record.id}` });
  }
  const input = parseWith(respondBody, body);
  if (input.expectedState && input.expectedState !== record.state) {
    throw conflict(record.state, `The task is ${record.state}, not ${input.expectedState}; nothing was changed`);
  }
  if (!(RESPOND_TRANSITIONS[record.state] ?? []).includes(input.state)) {
    throw conflict(record.state, `A task in ${record.state} cannot move to ${input.state}; nothing was changed`);
  }
  const message: Message | undefined = input.message && {
    messageId: input.message.messageId ?? randomUUID(),
    contextId: record.contextId,
    taskId: record.id,
    role: 'ROLE_AGENT',
    parts: input.message.parts,
    ...(input.message.metadata ? { metadata: input.message.metadata } : {}),
  };
  if (message) checkParts(message.parts, 'message.parts');
  const artifacts: Artifact[] = (input.artifacts ?? []).map((a, i) => {
    checkParts(a.parts, `artifacts[${i}].parts`);
    return Object.assign({}, a, { artifactId: a.artifactId ?? randomUUID() });
  });
  return { state: input.state, ...(message ? { statusMessage: message } : {}), messages: message ? [message] : [], artifacts };
}

const conflict = (state: StoredTask['record']['state'], message: string) =>
  new HubError('CONFLICT', message, { meta: { currentState: state, state: stateLabel(state) }, hint: 'Read the task again and respond from its current state' });
