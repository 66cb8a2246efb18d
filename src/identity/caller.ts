import { HubError } from '../errors/hub-error.js';
import type { QuotaGate } from '../store/store.js';

/**
 * The caller's bearer token, by its hash, and whether it was found live during this request. A
 * token's hash names one agent for good, so a node may know the owner without asking; whether the
 * token is still live (not revoked or rotated away) it may not know without the database, when the
 * store is shared: then `checked` is false until the request's own statement checks it (the task
 * reads and writes pass the hash as `liveToken`), or Identity.confirm does before the request is
 * answered. The hash stays with the caller so an open stream can ask later whether its token is
 * still live (doors/http/open-streams.ts).
 */
export interface TokenCheck {
  readonly hash: string;
  checked: boolean;
  /** Checked with the token, before it (see QuotaGate): the refused tokens of the client's address. */
  readonly gate?: QuotaGate;
}

/**
 * Who is making a request. Only a request with no token at all is anonymous. An operator (a
 * person's account) carries the handles of the agents it owns, read from the store with its
 * token for this request: the view lets it read their tasks, and nothing lets it act as them.
 */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'agent'; handle: string; token?: TokenCheck }
  | { kind: 'admin' }
  | { kind: 'operator'; handle: string; agents: readonly string[]; token?: TokenCheck };

/** The caller's token (an agent's or an operator's), when the caller came with one. */
export const tokenOf = (caller: Caller): TokenCheck | undefined =>
  caller.kind === 'agent' || caller.kind === 'operator' ? caller.token : undefined;

/** The caller's token, when it is still to be checked (see TokenCheck). */
export const uncheckedToken = (caller: Caller): TokenCheck | undefined => {
  const token = tokenOf(caller);
  return token && !token.checked ? token : undefined;
};

export const ANONYMOUS: Caller = { kind: 'anonymous' };

/** A caller as a log line names it: the agent's handle, 'operator:<handle>', 'admin' or 'anonymous' (never a token). */
export const callerLabel = (caller: Caller): string =>
  caller.kind === 'agent' ? caller.handle : caller.kind === 'operator' ? `operator:${caller.handle}` : caller.kind;

export const callerName = (caller: Caller): string =>
  caller.kind === 'agent' || caller.kind === 'operator'
    ? caller.handle
    : caller.kind === 'admin'
      ? '(admin)'
      : '(anonymous)';

/** Refuses an anonymous caller: `what` (e.g. "SendMessage") needs a bearer token. */
export function requireToken(caller: Caller, what: string, more?: string): void {
  if (caller.kind === 'anonymous') {
    const hint = 'Send Authorization: Bearer <token>; an agent gets one from POST /api/agents';
    throw new HubError('UNAUTHENTICATED', `${what} needs a bearer token`, { hint: more ? `${hint}. ${more}` : hint });
  }
}

/** The refusal of an operator token where only an agent acts: operators read, agents act. */
export const operatorCannotAct = (what: string) =>
  new HubError(
    'FORBIDDEN',
    `An operator token cannot ${what}: operators read their agents' tasks, and the agent's own token acts`,
    {
      hint: "Send the agent's own token for this (an operator can rotate it: POST /api/agents/{handle}/token)",
    },
  );

/**
 * Refuses an anonymous caller (`what`, e.g. "SendMessage", needs a token) and an operator (it
 * cannot `act`, e.g. "send messages"): a write only an agent or the admin makes.
 */
export function requireActor(caller: Caller, what: string, act: string): void {
  requireToken(caller, what);
  if (caller.kind === 'operator') throw operatorCannotAct(act);
}

/** Refuses any caller but an agent (the admin token acts on the hub, it does not take part); answers the agent's handle. */
export function requireAgent(caller: Caller, what: string): string {
  requireToken(caller, what);
  if (caller.kind === 'agent') return caller.handle;
  if (caller.kind === 'operator') throw operatorCannotAct(what);
  throw new HubError('FORBIDDEN', `Only an agent may ${what}`, { hint: 'Use an agent token (POST /api/agents)' });
}
