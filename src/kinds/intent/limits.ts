/**
 * The intent kind's number ranges, in a module that imports nothing: the hub checks them, and
 * the CLI checks them before sending without loading the hub.
 */
export { PRIORITY } from '../../wire/priority.js';
export const LEASE_SECONDS = { min: 1, max: 3600, default: 600 } as const;
