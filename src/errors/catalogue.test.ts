import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { status as grpcStatus } from '@grpc/grpc-js';
import { jsonRpcError, restErrorBody, restStatus } from '../doors/http/errors.js';
import { JSONRPC_ERRORS } from '../doors/a2a/jsonrpc-errors.js';
import { REST_BINDING_ERRORS, statusBody } from '../doors/a2a/rest-binding-errors.js';
import { GRPC_ERRORS } from '../doors/grpc/errors.js';
import { REST_API_STATUS } from './rest-status.js';
import { MCP_TOOL_ERRORS, toolErrorResult } from '../mcp/errors.js';
import { CATALOGUE, type ErrorCode } from './catalogue.js';
import { HubError } from './hub-error.js';

const codes = Object.keys(CATALOGUE) as ErrorCode[];
const surface = readFileSync(new URL('../../docs/a2a-surface.md', import.meta.url), 'utf8');

const GRPC_UNIMPLEMENTED = new Set([
  'ROUTE_NOT_FOUND',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'VERSION_NOT_SUPPORTED',
]);

describe('the error catalogue', () => {
  it.each(codes)('%s is documented in docs/a2a-surface.md', (code) => {
    expect(surface).toContain(`\`${code}\``);
  });

  it.each(codes)(
    '%s maps to a JSON-RPC error with ErrorInfo, a REST API body, a google.rpc.Status and a gRPC status',
    (code) => {
      const error = new HubError(code, undefined, { hint: 'do this instead' });
      const rpc = jsonRpcError(error);
      expect(rpc.code).toBe(JSONRPC_ERRORS[code].code);
      expect(rpc.data[0]).toMatchObject({
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: code,
        metadata: { hint: 'do this instead' },
      });
      expect(restStatus(error)).toBe(REST_API_STATUS[code]);
      expect(restErrorBody(error).error).toMatchObject({
        code,
        status: REST_API_STATUS[code],
        hint: 'do this instead',
      });
      const status = statusBody(error).error;
      expect(status).toMatchObject({ code: REST_BINDING_ERRORS[code].http, status: REST_BINDING_ERRORS[code].status });
      expect(status.details[0]).toMatchObject({ reason: code, domain: CATALOGUE[code].domain });
      // The google.rpc.Status name of the HTTP+JSON binding is the gRPC code of the gRPC binding, but
      // where A2A 1.0 §5.4 has gRPC say UNIMPLEMENTED beside HTTP's 400 FAILED_PRECONDITION.
      expect(grpcStatus[GRPC_ERRORS[code]]).toBe(
        GRPC_UNIMPLEMENTED.has(code) ? 'UNIMPLEMENTED' : REST_BINDING_ERRORS[code].status,
      );
    },
  );

  it.each(codes)('%s is an MCP tool error with its code, its remedy and a hint', (code) => {
    const result = toolErrorResult(new HubError(code, undefined, { hint: 'do this instead' }));
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: {
        code,
        remedy: MCP_TOOL_ERRORS[code],
        hint: code === 'UNAUTHENTICATED' ? expect.stringContaining('MUSTER_TOKEN') : 'do this instead',
      },
    });
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(code) });
  });

  it("keeps the A2A codes of the specification and Muster's own three", () => {
    const rpc = (c: ErrorCode) => JSONRPC_ERRORS[c].code;
    expect([
      rpc('TASK_NOT_FOUND'),
      rpc('TASK_NOT_CANCELABLE'),
      rpc('PUSH_NOTIFICATION_NOT_SUPPORTED'),
      rpc('UNSUPPORTED_OPERATION'),
      rpc('VERSION_NOT_SUPPORTED'),
    ]).toEqual([-32001, -32002, -32003, -32004, -32009]);
    expect(
      (['UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED'] as const).map((c) => [
        JSONRPC_ERRORS[c].code,
        REST_API_STATUS[c],
        JSONRPC_ERRORS[c].http,
      ]),
    ).toEqual([
      [-32010, 401, 401],
      [-32011, 403, 403],
      [-32029, 429, 429],
    ]);
    expect(CATALOGUE.TASK_NOT_FOUND.domain).toBe('a2a-protocol.org');
    expect(CATALOGUE.INVALID_PARAMS.domain).toBe('muster.hub');
    expect(CATALOGUE.RATE_LIMITED.domain).toBe('muster.hub');
  });
});
