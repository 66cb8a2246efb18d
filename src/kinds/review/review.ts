import { v7 as uuidv7 } from 'uuid';
import type { JsonObject, Message } from '../../a2a/types.js';
import { HubError } from '../../errors/hub-error.js';
import { requireAgent } from '../../identity/caller.js';
import type { Quotas } from '../../identity/quotas.js';
import { REVIEW_QUOTA_RULES } from './quota-rules.js';
import { REVIEW_SETTINGS, reviewFrom } from './settings.js';
import type { StoredTask, TaskEntry } from '../../store/store.js';
import type { Change, Kind, KindContext, Opening } from '../../hub/kind.js';
import type { KindModule } from '../../hub/kind-module.js';
import { ARGS, DATA, onlyData, skillArgs, skillOf } from '../../wire/skill-call.js';
import { checkContribution, REVIEW_CONTRIBUTE, VERDICTS, type Contribution } from './contribution.js';
import { evaluate, type SealedContribution } from './evaluation.js';
import {
  checkApproval,
  checkRequestRules,
  DEFAULT_REVIEW_SETTINGS,
  openArgsSchema,
  REVIEW_OPEN,
  requestTexts,
  type ReviewRequest,
  type ReviewSettings,
} from './request.js';
import { isOpenTask, OPEN_TASK_SCOPE, readOpenTask, type OpenTask } from './open-task.js';
import { isoTime } from '../../wire/iso-time.js';

/** What a review task keeps about itself, in `metadata.muster.review`. */
export interface ReviewFacts {
  request: ReviewRequest;
  digest: string;
  /** The request as posted, when it came in the open-task form (its digest is over this). */
  openTask?: OpenTask;
  outcome?: string;
}

const facts = (task: StoredTask): ReviewFacts => (task.record.metadata?.['muster'] as { review: ReviewFacts }).review;

/**
 * Review tasks (the Cairn way of working): a public, checkable question about public sources;
 * agents contribute sealed verdicts; at the deadline the hub evaluates once by fixed rules.
 * Contributions are entries written alone (`sealed`), so until the deadline nothing anyone
 * else reads of the task changes; their author reads back a receipt.
 */
export function reviewKind(quotas: Quotas, settings: ReviewSettings): Kind {
  return {
    name: 'review',
    visibility: { readers: 'everyone', listedAt: [] }, // public: anyone reads the question and, after the deadline, the outcome, at the hub's base

    async open(ctx: KindContext, message: Message): Promise<Opening> {
      const poster = requireAgent(ctx.caller, 'post a review task');
      const args = skillArgs(message, openArgsSchema, 'A review post');
      const form = isOpenTask(args.request)
        ? readOpenTask(args.request, settings, ctx.now, `${ARGS}.request`)
        : undefined;
      const request = form?.request ?? checkRequestRules(args.request, settings, ctx.now, `${ARGS}.request`);
      const scope = form ? OPEN_TASK_SCOPE : undefined;
      const digest = checkApproval(args.approval, args.request, `${ARGS}.approval`, scope);
      const id = uuidv7();
      const review: ReviewFacts = form ? { request, digest, openTask: form.form } : { request, digest };
      return {
        kind: 'review',
        id,
        contextId: id,
        sender: poster,
        visibility: 'public',
        state: 'TASK_STATE_WORKING',
        metadata: { muster: { review } } as unknown as JsonObject,
        messages: [message],
        published: form?.published ?? requestTexts(request, `${ARGS}.request`),
        dueAt: Date.parse(request.deadline),
        quotas: [...quotas.charge('review.post', poster, ctx.now), ...quotas.charge('review.open', poster, ctx.now)],
      };
    },

    followUp(ctx: KindContext, task: StoredTask, message: Message): Change {
      const { record } = task;
      const { request } = facts(task);
      if (record.state !== 'TASK_STATE_WORKING') {
        throw new HubError('UNSUPPORTED_OPERATION', `Review ${record.id} was evaluated; it takes no more messages`, {
          hint: 'Read the Evaluation artifact with GetTask',
          meta: { currentState: record.state },
        });
      }
      const author = requireAgent(ctx.caller, 'contribute');
      if (author === record.sender)
        throw new HubError('FORBIDDEN', 'The poster of a review does not contribute to it', {
          hint: 'Other agents contribute; read the outcome after the deadline',
        });
      if (ctx.now >= Date.parse(request.deadline)) {
        throw new HubError('UNSUPPORTED_OPERATION', `Review ${record.id} passed its deadline and is being evaluated`, {
          hint: 'Read the Evaluation artifact with GetTask in a moment',
        });
      }
      // The report itself, or `{"skill": "review.contribute", "args": report}`.
      const data = onlyData(message, 'A contribution');
      const { contribution, published } =
        skillOf(message) === REVIEW_CONTRIBUTE
          ? checkContribution((data as { args?: unknown }).args, request, ARGS)
          : checkContribution(data, request, DATA);
      const body: SealedContribution = { id: uuidv7(), submitted_at: isoTime(ctx.now), ...contribution };
      return {
        sealed: {
          entry: { taskId: record.id, author, id: body.id, body: body as unknown as JsonObject, createdAt: ctx.now },
          whileState: 'TASK_STATE_WORKING',
          max: request.max_contributors,
        },
        messages: [],
        artifacts: [],
        published, // sealed now, public after the deadline: screened as it is sent
        quotas: quotas.charge('review.contribute', author, ctx.now),
      };
    },

    cancel(_ctx: KindContext, task: StoredTask): Change {
      throw new HubError(
        'TASK_NOT_CANCELABLE',
        `Review ${task.record.id} is public; it cannot be canceled or removed`,
        {
          hint: 'A review ends at its deadline, when the hub evaluates it; read the outcome then with GetTask',
          meta: { currentState: task.record.state },
        },
      );
    },

    due(task: StoredTask, entries: readonly TaskEntry[], now: number): Change | undefined {
      if (task.record.state !== 'TASK_STATE_WORKING') return undefined; // evaluated already: once only
      const review = facts(task);
      const result = evaluate(entries, review.request.min_independent, now);
      return {
        state: result.state,
        statusMessage: result.message,
        messages: [],
        artifacts: [result.artifact],
        metadata: { muster: { review: Object.assign({}, review, { outcome: result.outcome }) } },
        quotas: task.record.sender ? quotas.release('review.open', task.record.sender) : [],
      };
    },

    receipt(entry: TaskEntry): JsonObject {
      const c = entry.body as unknown as SealedContribution & Contribution;
      return {
        contribution: { id: c.id, verdict: c.verdict, submitted_at: c.submitted_at, sealed_until_deadline: true },
      };
    },

    actions: {},
  };
}

export const reviewModule: KindModule<ReviewSettings> = {
  name: 'review',
  quotaRules: REVIEW_QUOTA_RULES,
  settings: REVIEW_SETTINGS,
  settingsFrom: reviewFrom,
  opensAt: [{ door: 'hub', skill: REVIEW_OPEN }],
  cardSkills: (door) =>
    door !== 'hub'
      ? []
      : [
          {
            id: REVIEW_OPEN,
            name: 'Post a review task',
            description:
              `SendMessage without taskId, one data part {"skill": "${REVIEW_OPEN}", "args": {"request": {...}, "approval": {"public_input_digest": "sha256:<hex>", "public_output": true, "scope": "this_task"}}}. ` +
              'The digest is SHA-256 of the request in RFC 8785 canonical JSON: post exactly what your user approved. Answers at once with the task (TASK_STATE_WORKING, Task.id = contextId), ' +
              'whatever returnImmediately says; at the deadline the hub evaluates it once and the task carries an "Evaluation" artifact.',
            tags: ['review', 'public'],
          },
          {
            id: REVIEW_CONTRIBUTE,
            name: 'Contribute to a review',
            description:
              `SendMessage with the review's taskId and one data part {"verdict": "${VERDICTS.join('|')}", "summary", "conditions", "attempts", "limitations", "source_urls"} ` +
              `(or {"skill": "${REVIEW_CONTRIBUTE}", "args": {...}}). ` +
              'Sealed until the deadline: nobody else can tell it was sent; your receipt is in metadata.muster.receipt. One per agent per task.',
            tags: ['review'],
          },
        ],
  create: ({ quotas, settings }) => reviewKind(quotas, settings ?? DEFAULT_REVIEW_SETTINGS),
};
