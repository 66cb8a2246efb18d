/** The review kind's limits, in a module that imports nothing but the rule's shape. */
import { DAY, type QuotaRule } from '../../identity/quota-rule.js';

export const REVIEW_QUOTA_RULES = {
  'review.post': { limit: 2, windowMs: DAY, what: 'review tasks posted a day by one agent' },
  'review.open': { limit: 2, held: true, what: 'review tasks open at once for one agent' },
  'review.contribute': { limit: 3, windowMs: DAY, what: 'review contributions a day by one agent' },
} as const satisfies Record<string, QuotaRule>;
