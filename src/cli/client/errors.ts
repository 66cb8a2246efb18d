import { isHubError } from '../../errors/hub-error.js';
import { restErrorBody, restStatus } from '../../doors/http/errors.js';

/**
 * What can go wrong in a client command, and the one place it is printed: `muster: <message>`
 * plus the hint on stderr, or the hub's error JSON on stdout with --json. Exit status 1.
 */

interface FieldViolation {
  field: string;
  description: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const violations = (list: unknown): FieldViolation[] =>
  Array.isArray(list)
    ? list.filter(isObject).map((f) => ({ field: String(f['field'] ?? ''), description: String(f['description'] ?? '') }))
    : [];

/** The hub answered with an error: a REST error body or a JSON-RPC error object. */
export class HubAnswerError extends Error {
  /** The hub's code: `TASK_NOT_FOUND` (REST `code`, JSON-RPC ErrorInfo `reason`). */
  readonly code: string | undefined;
  readonly hint: string | undefined;
  readonly fields: FieldViolation[];

  constructor(
    readonly status: number,
    readonly body: unknown,
    /** Whether the request carried a token, to tell "no token" from "a bad token". */
    readonly sentToken: boolean,
  ) {
    const error = isObject(body) && isObject(body['error']) ? body['error'] : {};
    super(str(error['message']) ?? `the hub answered HTTP ${status}`);
    this.name = 'HubAnswerError';
    const details = Array.isArray(error['data']) ? error['data'].filter(isObject) : [];
    const info = details.find((d) => String(d['@type'] ?? '').endsWith('google.rpc.ErrorInfo'));
    const badRequest = details.find((d) => String(d['@type'] ?? '').endsWith('google.rpc.BadRequest'));
    this.code = str(error['code']) ?? str(info?.['reason']);
    this.hint = str(error['hint']) ?? (isObject(info?.['metadata']) ? str(info['metadata']['hint']) : undefined);
    this.fields = [...violations(error['fields']), ...violations(badRequest?.['fieldViolations'])];
  }
}

/** The hub could not be reached, or what answered was not a hub. */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
}

/** A mistake in the command line itself, found before anything is sent. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Prints any failure of a client command and sets the exit status to 1. */
export function printError(failure: unknown, json: boolean): void {
  process.exitCode = 1;
  // A local check (muster review preview) refused the input before anything was sent: it is
  // shown exactly as the hub would have answered it, in the hub's own REST error shape.
  const error = isHubError(failure) ? new HubAnswerError(restStatus(failure), restErrorBody(failure), true) : failure;
  if (error instanceof HubAnswerError) {
    if (json && error.body !== undefined) {
      process.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
      return;
    }
    const lines = [`muster: ${error.message}`];
    for (const f of error.fields) if (!error.message.includes(f.description)) lines.push(`  ${f.field}: ${f.description}`);
    if (error.hint) lines.push(`  hint: ${error.hint}`);
    if (error.status === 401 && !error.sentToken) lines.push('  (no token was sent: pass --token or set MUSTER_TOKEN)');
    process.stderr.write(`${lines.join('\n')}\n`);
    return;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`muster: ${error.message}\n${error.hint ? `  hint: ${error.hint}\n` : ''}`);
    return;
  }
  process.stderr.write(`muster: ${error instanceof Error ? error.message : String(error)}\n`);
}
