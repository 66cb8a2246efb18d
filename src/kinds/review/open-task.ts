/**
 * The open-task form of a review request, as Cairn's clients post it (`schema:
 * "cairn.open_task/0.1"`): the same question under other field names, with an operation id and
 * a budget fixed at zero. The kind reads it into its own request and checks that by the very
 * same rules, so a refusal names the form's fields; the digest is over the form as posted,
 * approved with the scope `this_open_task`. The form is kept on the task as it was posted.
 */
import { z } from 'zod';
import { parseWith, renamedFields } from '../../a2a/validate.js';
import type { Published } from '../../wire/screening.js';
import { checkRequestRules, type ReviewRequest, type ReviewSettings } from './request.js';

export const OPEN_TASK_SCHEMA = 'cairn.open_task/0.1';
/** The approval scope of a request in the open-task form. */
export const OPEN_TASK_SCOPE = 'this_open_task';

const NOTHING_PAID = 'must be 0: nothing is paid';
const slug = (what: string) =>
  z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/, `must be ${what}: 1 to 200 letters, digits and . _ : -`);

/** The form's own fields; the review's (goal, source_urls, …) are checked by the native rules, under the form's names. */
const openTaskSchema = z
  .object({
    schema: z.literal(OPEN_TASK_SCHEMA),
    operation_id: slug('an id such as a UUID'),
    task_type: z.literal('source_review', "must be 'source_review'"),
    goal: z.unknown(),
    source_urls: z.unknown(),
    acceptance_criteria: z.unknown(),
    deadline_at: z.unknown(),
    min_independent: z.unknown(),
    max_contributors: z.unknown(),
    budget: z
      .object({ currency: z.literal('USD', "must be 'USD'"), max_total_minor: z.literal(0, NOTHING_PAID) })
      .strict()
      .optional(),
    reward_points: z.literal(0, NOTHING_PAID).optional(),
    min_share_percent: z
      .int('must be a whole number')
      .min(0, 'must be 0 to 100')
      .max(100, 'must be 0 to 100')
      .optional(),
    publication_plan: slug('a plan name such as a2a_thread').optional(),
  })
  .strict();

export type OpenTask = z.output<typeof openTaskSchema>;

/** The form's name of each native field it renames. */
const FORM_NAMES: Readonly<Record<string, string>> = {
  question: 'goal',
  sources: 'source_urls',
  acceptance: 'acceptance_criteria',
  deadline: 'deadline_at',
};

export const isOpenTask = (request: unknown): boolean =>
  typeof request === 'object' && request !== null && (request as { schema?: unknown }).schema === OPEN_TASK_SCHEMA;

/** Reads the form found at `root` into the native request, checked by the native rules at `now`. */
export function readOpenTask(
  raw: unknown,
  settings: ReviewSettings,
  now: number,
  root: string,
): { form: OpenTask; request: ReviewRequest; published: Published } {
  const form = parseWith(openTaskSchema, raw, root);
  const native = {
    question: form.goal,
    sources: form.source_urls,
    acceptance: form.acceptance_criteria,
    deadline: form.deadline_at,
    min_independent: form.min_independent,
    max_contributors: form.max_contributors,
  };
  try {
    const request = checkRequestRules(native, settings, now, root);
    // Its texts under the form's names, so a refusal names the fields as posted.
    return {
      form,
      request,
      published: { [root]: { goal: request.question, acceptance_criteria: request.acceptance } },
    };
  } catch (e) {
    throw renamedFields(e, (field) => formField(field, root));
  }
}

/** `root.sources[0]` → `root.source_urls[0]`: a native field as the form names it. */
function formField(field: string, root: string): string {
  if (!field.startsWith(`${root}.`)) return field;
  const rest = field.slice(root.length + 1);
  const name = /^[a-z_]+/.exec(rest)?.[0] ?? '';
  return `${root}.${FORM_NAMES[name] ?? name}${rest.slice(name.length)}`;
}

/** The form as it reads back from a native request (a review posted natively has no operation id). */
export function asOpenTask(request: ReviewRequest): Omit<OpenTask, 'operation_id'> {
  return {
    schema: OPEN_TASK_SCHEMA,
    task_type: 'source_review',
    goal: request.question,
    source_urls: request.sources,
    acceptance_criteria: request.acceptance,
    deadline_at: request.deadline,
    min_independent: request.min_independent,
    max_contributors: request.max_contributors,
    budget: { currency: 'USD', max_total_minor: 0 },
    reward_points: 0,
  };
}
