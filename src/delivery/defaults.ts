/**
 * The delivery settings' defaults, in a module of their own: the settings table (config/) names
 * them without loading the outbox and the signer, which the CLI's client commands never run.
 */

/** Seconds before each retry of a delivery: 1 min, 5 min, 30 min, 2 h, 6 h. */
export const DEFAULT_RETRIES = [60, 300, 1800, 7200, 21600] as const;

/** Days a replaced signing key stays published. */
export const DEFAULT_GRACE_DAYS = 30;
