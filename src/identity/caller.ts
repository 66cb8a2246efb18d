/** Who is making a request. Only a request with no token at all is anonymous. */
export type Caller = { kind: 'anonymous' } | { kind: 'agent'; handle: string } | { kind: 'admin' };

export const ANONYMOUS: Caller = { kind: 'anonymous' };

export const callerName = (caller: Caller): string =>
  caller.kind === 'agent' ? caller.handle : caller.kind === 'admin' ? '(admin)' : '(anonymous)';
