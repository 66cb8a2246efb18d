/**
 * Each kind's settings, from its own folder, as one set of entries for the hub's settings table
 * (config/settings.ts), which makes their flags, variables, help and checks like every other.
 * A new kind with settings adds its entries here.
 */
import { INTENT_SETTINGS } from './intent/settings.js';
import { REVIEW_SETTINGS } from './review/settings.js';

export const KIND_SETTINGS = { ...REVIEW_SETTINGS, ...INTENT_SETTINGS };
