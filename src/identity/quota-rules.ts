/**
 * The hub's own rate limits, beside the kinds' (each kind declares its own): registrations and
 * refused tokens per source address, and forwarding switches per agent. In a module that
 * imports nothing but the rule's shape, so the settings table can list them.
 */
import { HOUR, type QuotaRule } from './quota-rule.js';

export const IDENTITY_QUOTA_RULES = {
  'register.address': {
    limit: 60,
    windowMs: HOUR,
    perAddress: true,
    what: 'agents registered an hour from one address',
  },
  'forwarding.change': { limit: 30, windowMs: HOUR, what: 'forwarding changes an hour for one agent' },
  // Tokens are 256 random bits; these stop guessing at a weak admin token and floods of bad tokens.
  'token.failures': {
    limit: 100,
    windowMs: HOUR,
    perAddress: true,
    what: 'refused bearer tokens an hour from one address',
  },
  'token.failures.operator': {
    limit: 10,
    windowMs: HOUR,
    perAddress: true,
    what: 'refused operator tokens (mso_) an hour from one address',
  },
} as const satisfies Record<string, QuotaRule>;
