import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { invalidParams } from '../../errors/hub-error.js';
import type { Published } from '../../wire/screening.js';
import type { ReviewRequest } from './request.js';

export const REVIEW_CONTRIBUTE = 'review.contribute';
export const VERDICTS = ['source_supported', 'source_contradicted', 'source_unclear'] as const;
export type Verdict = (typeof VERDICTS)[number];
/** The report form Cairn's clients send (contributionFormSchema below). */
export const CONTRIBUTION_SCHEMA = 'cairn.task.contribution/0.1';

const short = z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters');
const list = z.array(short).max(10, 'takes at most 10 items').default([]);

const fields = {
  verdict: z.enum(VERDICTS, `must be one of ${VERDICTS.join(', ')}`),
  summary: z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters'),
  attempts: list,
  source_urls: z
    .array(z.string())
    .min(1, "must name at least one of the task's sources")
    .max(10, 'takes at most 10 sources'),
};

const contributionSchema = z.object({ ...fields, conditions: list, limitations: list }).strict();

export type Contribution = z.output<typeof contributionSchema>;

/**
 * The same report in the form Cairn's clients send: `schema` named, `conditions` and
 * `limitations` each one text (kept as a list of one), and the author's approval of its
 * publication after the deadline.
 */
const text = z.string().trim().max(1000, 'must be at most 1000 characters').optional();
const contributionFormSchema = z
  .object({
    ...fields,
    schema: z.literal(CONTRIBUTION_SCHEMA),
    conditions: text,
    limitations: text,
    public_output_approved: z.literal(true, 'must be true: the contribution is public after the deadline'),
  })
  .strict();

const asList = (value: string | undefined): string[] => (value ? [value] : []);

const isForm = (report: unknown): boolean =>
  typeof report === 'object' && report !== null && (report as { schema?: unknown }).schema === CONTRIBUTION_SCHEMA;

/** A contribution's report and the texts it publishes after the deadline (the report's own fields, found at `at`). */
export interface CheckedContribution {
  contribution: Contribution;
  published: Published;
}

/** A contribution's report (found at `at`), in either form, checked against the task's request. */
export function checkContribution(report: unknown, request: ReviewRequest, at: string): CheckedContribution {
  if (!isForm(report)) {
    const contribution = parseWith(contributionSchema, report, at);
    const { verdict: _verdict, source_urls: _urls, ...texts } = contribution;
    return { contribution: checked(contribution, request, at), published: { [at]: texts } };
  }
  const form = parseWith(contributionFormSchema, report, at);
  const contribution: Contribution = {
    verdict: form.verdict,
    summary: form.summary,
    conditions: asList(form.conditions),
    attempts: form.attempts,
    limitations: asList(form.limitations),
    source_urls: form.source_urls,
  };
  const { summary, conditions, attempts, limitations } = form; // the form's texts, named as it was sent
  return {
    contribution: checked(contribution, request, at),
    published: { [at]: { summary, conditions, attempts, limitations } },
  };
}

function checked(contribution: Contribution, request: ReviewRequest, at: string): Contribution {
  contribution.source_urls.forEach((url, i) => {
    if (!request.sources.includes(url))
      throw invalidParams(
        `${at}.source_urls[${i}]`,
        "is not one of the task's sources",
        `Use only: ${request.sources.join(', ')}`,
      );
  });
  return contribution;
}
