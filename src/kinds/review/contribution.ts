import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { invalidParams } from '../../errors/hub-error.js';
import { requirePublic } from '../../wire/screening.js';
import type { ReviewRequest } from './request.js';

export const REVIEW_CONTRIBUTE = 'review.contribute';
export const VERDICTS = ['source_supported', 'source_contradicted', 'source_unclear'] as const;
export type Verdict = (typeof VERDICTS)[number];

const short = z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters');
const list = z.array(short).max(10, 'takes at most 10 items').default([]);

const contributionSchema = z
  .object({
    verdict: z.enum(VERDICTS, `must be one of ${VERDICTS.join(', ')}`),
    summary: z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters'),
    conditions: list,
    attempts: list,
    limitations: list,
    source_urls: z
      .array(z.string())
      .min(1, "must name at least one of the task's sources")
      .max(10, 'takes at most 10 sources'),
  })
  .strict();

export type Contribution = z.output<typeof contributionSchema>;

/** A contribution's report (found at `at`), checked against the task's request and screened. */
export function checkContribution(report: unknown, request: ReviewRequest, at: string): Contribution {
  const contribution = parseWith(contributionSchema, report, at);
  contribution.source_urls.forEach((url, i) => {
    if (!request.sources.includes(url))
      throw invalidParams(
        `${at}.source_urls[${i}]`,
        "is not one of the task's sources",
        `Use only: ${request.sources.join(', ')}`,
      );
  });
  const { verdict: _verdict, source_urls: _urls, ...texts } = contribution;
  requirePublic(texts, at);
  return contribution;
}
