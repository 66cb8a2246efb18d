import { CATALOGUE, type ErrorCode } from './catalogue.js';

export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

export interface HubErrorOptions {
  /** What to send instead. */
  readonly hint?: string;
  /** Which request fields were wrong (validation errors). */
  readonly fields?: readonly FieldViolation[];
  /** Extra structured facts for the caller (e.g. the current state on a conflict). */
  readonly meta?: Readonly<Record<string, string>>;
}

/** A domain error: a catalogue code plus what the caller needs to fix the request. No wire shapes. */
export class HubError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly fields: readonly FieldViolation[];
  readonly meta: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message?: string, options: HubErrorOptions = {}) {
    super(message ?? CATALOGUE[code].message);
    this.name = 'HubError';
    this.code = code;
    this.hint = options.hint;
    this.fields = options.fields ?? [];
    this.meta = options.meta ?? {};
  }
}

export const invalidParams = (field: string, description: string, hint?: string): HubError =>
  new HubError('INVALID_PARAMS', `Invalid parameter '${field}': ${description}`, {
    fields: [{ field, description }],
    ...(hint ? { hint } : {}),
  });

export const isHubError = (e: unknown): e is HubError => e instanceof HubError;
