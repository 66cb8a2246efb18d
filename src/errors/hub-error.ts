import { CATALOGUE, type ErrorCode } from './catalogue.js';

export interface FieldViolation {
  /** Where the field is, relative to the request the hub was given (`message.parts[0].text`); '' is the whole request. */
  readonly field: string;
  /** What is wrong with it and what is allowed. */
  readonly description: string;
}

export interface HubErrorOptions {
  /** What to send instead. */
  readonly hint?: string;
  /**
   * What to send instead on the REST API, when it differs from `hint` (which names A2A methods):
   * a refusal both doors can reach gives each its own advice. Never sent as a field of its own.
   */
  readonly restHint?: string;
  /** Which request fields were wrong (validation errors). */
  readonly fields?: readonly FieldViolation[];
  /** Extra structured facts for the caller (e.g. the current state on a conflict). */
  readonly meta?: Readonly<Record<string, string>>;
}

/** `message.parts` under `params` is `params.message.parts`; an index joins without a dot. */
export const joinField = (root: string, field: string): string =>
  !root ? field : !field ? root : field.startsWith('[') ? `${root}${field}` : `${root}.${field}`;

/** The message of a refusal of fields: it names the first, as the caller knows it. */
const fieldsMessage = (fields: readonly FieldViolation[]): string => {
  const [first] = fields;
  const more =
    fields.length > 1
      ? ` (and ${fields.length - 1} more field${fields.length > 2 ? 's' : ''}, listed in the error's fields)`
      : '';
  return `${first!.field ? `Invalid '${first!.field}'` : 'Invalid request body'}: ${first!.description}${more}`;
};

/** A domain error: a catalogue code plus what the caller needs to fix the request. No wire shapes. */
export class HubError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly restHint: string | undefined;
  readonly fields: readonly FieldViolation[];
  readonly meta: Readonly<Record<string, string>>;
  /** Whether the message was written from the fields (and so is rewritten when they move). */
  private readonly namesFields: boolean;

  constructor(code: ErrorCode, message?: string, options: HubErrorOptions = {}) {
    const fields = options.fields ?? [];
    const namesFields = message === undefined && fields.length > 0;
    super(message ?? (namesFields ? fieldsMessage(fields) : CATALOGUE[code].message));
    this.name = 'HubError';
    this.code = code;
    this.hint = options.hint;
    this.restHint = options.restHint;
    this.fields = fields;
    this.meta = options.meta ?? {};
    this.namesFields = namesFields;
  }

  /**
   * The same refusal with its fields named from `root`: a door puts the request where its caller
   * sees it (JSON-RPC: under `params`), the hub does not know where that is.
   */
  under(root: string): HubError {
    if (this.fields.length === 0 || !root) return this;
    const fields = this.fields.map((f) => ({ field: joinField(root, f.field), description: f.description }));
    return new HubError(this.code, this.namesFields ? undefined : this.message, {
      hint: this.hint,
      restHint: this.restHint,
      fields,
      meta: this.meta,
    });
  }

  /** The same refusal with another hint (a door adds what only it knows, such as a URL). */
  hinted(hint: string, meta: Readonly<Record<string, string>> = this.meta): HubError {
    return new HubError(this.code, this.message, { hint, restHint: this.restHint, fields: this.fields, meta });
  }
}

/** One field refused: the message names it, says what is allowed; the hint says what to send instead. */
export const invalidParams = (field: string, description: string, hint?: string): HubError =>
  new HubError('INVALID_PARAMS', undefined, { fields: [{ field, description }], ...(hint ? { hint } : {}) });

export const isHubError = (e: unknown): e is HubError => e instanceof HubError;

/**
 * For `.catch`: `undefined` when the refusal is one of `codes` (a thing that is not there, which
 * the caller handles), any other failure (the database down, a dead token) passed on as it is.
 */
export const absentOn =
  (...codes: ErrorCode[]) =>
  (e: unknown): undefined => {
    if (isHubError(e) && codes.includes(e.code)) return undefined;
    throw e;
  };
