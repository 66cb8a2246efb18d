import { HubError } from '../errors/hub-error.js';

/** Who is making a request. Only a request with no token at all is anonymous. */
export type Caller = { kind: 'anonymous' } | { kind: 'agent'; handle: string } | { kind: 'admin' };

export const ANONYMOUS: Caller = { kind: 'anonymous' };

export const callerName = (caller: Caller): string =>
  caller.kind === 'agent' ? caller.handle : caller.kind === 'admin' ? '(admin)' : '(anonymous)';

/** Refuses an anonymous caller: `what` (e.g. "SendMessage") needs a bearer token. */
export function requireToken(caller: Caller, what: string, more?: string): void {
  if (caller.kind === 'anonymous') {
    const hint = 'Send Authorization: Bearer <token>; an agent gets one from POST /api/agents';
    throw new HubError('UNAUTHENTICATED', `${what} needs a bearer token`, { hint: more ? `${hint}. ${more}` : hint });
  }
}

/** Refuses any caller but an agent (the admin token acts on the hub, it does not take part); answers the agent's handle. */
export function requireAgent(caller: Caller, what: string): string {
  requireToken(caller, what);
  if (caller.kind === 'agent') return caller.handle;
  throw new HubError('FORBIDDEN', `Only an agent may ${what}`, { hint: 'Use an agent token (POST /api/agents)' });
}
