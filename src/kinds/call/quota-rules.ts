/** The open call kind's limit, in a module that imports nothing but the rule's shape. */
import { DAY, type QuotaRule } from '../../identity/quota-rule.js';

export const CALL_QUOTA_RULES = {
  'call.answer': { limit: 10, windowMs: DAY, what: 'answers to open calls a day by one agent' },
} as const satisfies Record<string, QuotaRule>;
