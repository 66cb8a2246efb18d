import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonRpcError, restErrorBody, restStatus } from '../doors/http/errors.js';
import { CATALOGUE, type ErrorCode } from './catalogue.js';
import { HubError } from './hub-error.js';

const codes = Object.keys(CATALOGUE) as ErrorCode[];
const surface = readFileSync(new URL('../../docs/a2a-surface.md', import.meta.url), 'utf8');

describe('the error catalogue', () => {
  it.each(codes)('%s is documented in docs/a2a-surface.md', (code) => {
    expect(surface).toContain(`\`${code}\``);
  });

  it.each(codes)('%s maps to a JSON-RPC error with ErrorInfo and to a REST body', (code) => {
    const error = new HubError(code, undefined, { hint: 'do this instead' });
    const rpc = jsonRpcError(error);
    expect(rpc.code).toBe(CATALOGUE[code].rpc);
    expect(rpc.data[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, metadata: { hint: 'do this instead' } });
    expect(restStatus(error)).toBe(CATALOGUE[code].http);
    expect(restErrorBody(error).error).toMatchObject({ code, status: CATALOGUE[code].http, hint: 'do this instead' });
  });

  it('keeps the A2A codes of the specification and Muster\'s own three', () => {
    const rpc = (c: ErrorCode) => CATALOGUE[c].rpc;
    expect([rpc('TASK_NOT_FOUND'), rpc('TASK_NOT_CANCELABLE'), rpc('PUSH_NOTIFICATION_NOT_SUPPORTED'), rpc('UNSUPPORTED_OPERATION'), rpc('VERSION_NOT_SUPPORTED')]).toEqual([-32001, -32002, -32003, -32004, -32009]);
    expect([CATALOGUE.UNAUTHENTICATED, CATALOGUE.FORBIDDEN, CATALOGUE.RATE_LIMITED].map((s) => [s.rpc, s.http, s.rpcHttp])).toEqual([
      [-32010, 401, 401],
      [-32011, 403, 403],
      [-32029, 429, 429],
    ]);
    expect(CATALOGUE.TASK_NOT_FOUND.domain).toBe('a2a-protocol.org');
    expect(CATALOGUE.INVALID_PARAMS.domain).toBe('muster.hub');
    expect(CATALOGUE.RATE_LIMITED.domain).toBe('muster.hub');
  });
});
