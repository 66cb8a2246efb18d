/** The intent kind's limit, in a module that imports nothing but the rule's shape. */
import { MINUTE, type QuotaRule } from '../../identity/quota-rule.js';

export const INTENT_QUOTA_RULES = {
  'intent.declare': { limit: 120, windowMs: MINUTE, what: 'intents a minute declared by one caller' },
} as const satisfies Record<string, QuotaRule>;
