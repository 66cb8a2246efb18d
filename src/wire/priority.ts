/**
 * The priority scale work is ranked on: an intent's priority, and the cap a space sets on what its
 * orchestrators may declare. Here, in a module that imports nothing, so the hub's spaces, the
 * intent kind and the CLI check the same range.
 */
export const PRIORITY = { min: 1, max: 10 } as const;
