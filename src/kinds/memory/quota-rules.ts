/** The memory kind's rate limit, in a module that imports nothing but the rule's shape. */
import { MINUTE, type QuotaRule } from '../../identity/quota-rule.js';

export const MEMORY_QUOTA_RULES = {
  'memory.calls': { limit: 600, windowMs: MINUTE, what: 'memory calls a minute from one agent' },
} as const satisfies Record<string, QuotaRule>;
