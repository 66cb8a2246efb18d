/**
 * Each kind's settings, from its own folder, as one set of entries for the hub's settings table
 * (config/settings.ts), which makes their flags, variables, help and checks like every other.
 * A new kind with settings adds its entries here, and its quota rules to KIND_QUOTA_RULES (each
 * rule becomes a limit setting; test/config.test.ts checks that every rule the hub counts has one).
 */
import { CALL_QUOTA_RULES } from './call/quota-rules.js';
import { DIRECT_QUOTA_RULES } from './direct/quota-rules.js';
import { DIRECT_SETTINGS } from './direct/settings.js';
import { INTENT_QUOTA_RULES } from './intent/quota-rules.js';
import { INTENT_SETTINGS } from './intent/settings.js';
import { MEMORY_QUOTA_RULES } from './memory/quota-rules.js';
import { REVIEW_QUOTA_RULES } from './review/quota-rules.js';
import { REVIEW_SETTINGS } from './review/settings.js';

export const KIND_SETTINGS = { ...DIRECT_SETTINGS, ...REVIEW_SETTINGS, ...INTENT_SETTINGS };

export const KIND_QUOTA_RULES = { ...DIRECT_QUOTA_RULES, ...REVIEW_QUOTA_RULES, ...CALL_QUOTA_RULES, ...INTENT_QUOTA_RULES, ...MEMORY_QUOTA_RULES };
