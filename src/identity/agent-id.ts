/**
 * An agent's public id: a UUID given at registration that never changes, so a client may keep
 * it where a handle would do. REST routes that name an agent take either; a handle can never be
 * mistaken for an id, since registration refuses handles of this form (reserved-handles.ts).
 */
const AGENT_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `ref` has the form of an agent id (any UUID, either case). */
export const isAgentId = (ref: string): boolean => AGENT_ID_PATTERN.test(ref);
