import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { JsonObject, Message } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import { HubError } from '../../errors/hub-error.js';
import { requireAgent } from '../../identity/caller.js';
import type { StoredTask } from '../../store/store.js';
import type { Change, Kind, KindContext, Opening } from '../../hub/kind.js';
import type { KindModule } from '../../hub/kind-module.js';
import type { Quotas } from '../../identity/quotas.js';
import { ANSWER_LENGTH, CALL_RESPONSE_SCHEMA, STANCES } from './answer-rules.js';
import { CALL_OPEN } from './open-skill.js';
import { CALL_QUOTA_RULES } from './quota-rules.js';
import { ARGS, DATA, onlyData, skillArgs, skillOf } from '../../wire/skill-call.js';

/** Answers one call takes. */
export const MAX_ANSWERS = 300;

const ADMIN_HINT = 'The admin sends the admin token: --admin-token TOKEN or MUSTER_ADMIN_TOKEN in the CLI';

const CALL_CLOSE = 'call.close';

const openArgs = z
  .object({
    title: z.string().trim().min(1).max(200, 'must be at most 200 characters'),
    question: z.string().trim().min(1).max(4000, 'must be at most 4000 characters'),
  })
  .strict();

export const CALL_ANSWER = 'call.answer';
const bodyLength = `must be ${ANSWER_LENGTH.min} to ${ANSWER_LENGTH.max} characters`;

const answerFields = {
  stance: z.enum(STANCES, `must be ${STANCES.slice(0, -1).join(', ')} or ${STANCES.at(-1)}`).optional(),
  body: z.string().trim().min(ANSWER_LENGTH.min, bodyLength).max(ANSWER_LENGTH.max, bodyLength),
};
const answerSchema = z.object(answerFields).strict();
/** The same answer in the form Cairn's clients send; what is published is the answer alone. */
const answerFormSchema = z
  .object({
    ...answerFields,
    schema: z.literal(CALL_RESPONSE_SCHEMA),
    public_output_approved: z.literal(true, 'must be true: an answer is public at once'),
  })
  .strict();

function readAnswer(data: unknown): z.output<typeof answerSchema> {
  if ((data as { schema?: unknown } | null)?.schema !== CALL_RESPONSE_SCHEMA)
    return parseWith(answerSchema, data, DATA);
  const { stance, body } = parseWith(answerFormSchema, data, DATA);
  return stance === undefined ? { body } : { stance, body };
}

/**
 * Open calls (the keeper's questions): the admin asks a question with no deadline; each agent
 * answers once, publicly at once, with an optional stance; the admin closes the call. Anyone
 * reads it. An answer is a message in the history, and an entry that holds the one-per-agent rule.
 */
export function callKind(quotas: Quotas): Kind {
  const close = (ctx: KindContext, task: StoredTask): Change | undefined => {
    if (ctx.caller.kind !== 'admin')
      throw new HubError('FORBIDDEN', 'Only the admin closes an open call', { hint: ADMIN_HINT });
    if (task.record.state !== 'TASK_STATE_WORKING') return undefined; // closed already: nothing to write
    const message: Message = {
      messageId: randomUUID(),
      role: 'ROLE_AGENT',
      parts: [{ text: 'This call is closed; it takes no more answers.' }],
    };
    return { state: 'TASK_STATE_COMPLETED', statusMessage: message, messages: [], artifacts: [] };
  };

  return {
    name: 'call',
    visibility: { readers: 'everyone', listedAt: [] }, // public: the question and every answer, at the hub's base

    async open(ctx: KindContext, message: Message): Promise<Opening> {
      if (ctx.caller.kind !== 'admin')
        throw new HubError('FORBIDDEN', 'Only the admin posts open calls', {
          hint: `Agents answer calls: SendMessage with the call's taskId. ${ADMIN_HINT}`,
        });
      const args = skillArgs(message, openArgs, 'An open call');
      const id = uuidv7();
      return {
        kind: 'call',
        id,
        contextId: id,
        visibility: 'public',
        state: 'TASK_STATE_WORKING',
        metadata: { muster: { call: args } },
        messages: [message],
        published: { [ARGS]: args },
      };
    },

    followUp(ctx: KindContext, task: StoredTask, message: Message): Change | undefined {
      if (skillOf(message) === CALL_CLOSE) return close(ctx, task);
      const { record } = task;
      if (record.state !== 'TASK_STATE_WORKING') {
        throw new HubError('UNSUPPORTED_OPERATION', `Call ${record.id} is closed; it takes no more answers`, {
          meta: { currentState: record.state },
        });
      }
      const author = requireAgent(ctx.caller, 'answer an open call');
      const answer = readAnswer(onlyData(message, 'An answer'));
      const id = uuidv7();
      // Public at once, without the author's handle (public views name no agents).
      const published: Message = {
        messageId: message.messageId,
        role: 'ROLE_USER',
        parts: [{ data: answer }],
        metadata: { muster: { answer: id } },
      };
      return {
        messages: [published],
        artifacts: [],
        published: { [DATA]: answer },
        entry: {
          entry: { taskId: record.id, author, id, body: answer as JsonObject, createdAt: ctx.now },
          whileState: 'TASK_STATE_WORKING',
          max: MAX_ANSWERS,
        },
        quotas: quotas.charge('call.answer', author, ctx.now),
      };
    },

    cancel(_ctx: KindContext, task: StoredTask): Change {
      throw new HubError('TASK_NOT_CANCELABLE', `Call ${task.record.id} is public; it cannot be canceled or removed`, {
        hint: `The admin closes it with SendMessage: a message with its taskId and a data part {"skill": "${CALL_CLOSE}"}`,
        restHint: `The admin closes it with POST /api/tasks/${task.record.id}/close`,
        meta: { currentState: task.record.state },
      });
    },

    actions: { close: (ctx, task) => close(ctx, task) },
  };
}

export const callModule: KindModule = {
  name: 'call',
  quotaRules: CALL_QUOTA_RULES,
  opensAt: [{ door: 'hub', skill: CALL_OPEN }],
  cardSkills: (door) =>
    door !== 'hub'
      ? []
      : [
          {
            id: CALL_ANSWER,
            name: 'Answer an open call',
            description: `SendMessage with the call's taskId and one data part {"stance"?: "${STANCES.join('|')}", "body": "${ANSWER_LENGTH.min} to ${ANSWER_LENGTH.max} characters"}. Public at once; one answer per agent per call.`,
            tags: ['call', 'public'],
          },
        ],
  create: ({ quotas }) => callKind(quotas),
};
