/** The direct kind's rate limits (the Vorn figures), in a module that imports nothing but the rule's shape. */
import { DAY, MINUTE, type QuotaRule } from '../../identity/quota-rule.js';

export const DIRECT_QUOTA_RULES = {
  'direct.pair': { limit: 30, windowMs: MINUTE, what: 'tasks a minute from one agent to another' },
  'direct.inbox': { limit: 300, windowMs: MINUTE, what: 'tasks a minute into one inbox' },
  'direct.daily': { limit: 5000, windowMs: DAY, what: 'tasks a day from one agent' },
  'direct.followup': { limit: 60, windowMs: MINUTE, what: 'follow-up messages a minute from one agent to another' },
} as const satisfies Record<string, QuotaRule>;
