import { isJsonObject } from '../a2a/types.js';
import { isHubError } from '../errors/hub-error.js';
import { REST_API_STATUS, restErrorBody, restStatus } from '../errors/rest-status.js';
import { flagOfField, inCliWords, type FieldWords } from './cli-words.js';

/**
 * What can go wrong in a client command, and the one place it is printed. Every failure is a
 * CliError: a code, a message, at most one hint, and the exit status that says which class it is
 * (1 refused by the hub, 2 bad usage, 3 hub unreachable). docs/cli.md lists the codes.
 */

export const EXIT = { refused: 1, usage: 2, unreachable: 3 } as const;
type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

export interface FieldViolation {
  field: string;
  description: string;
}

/** The one error document `--json` prints on any failure. */
interface ErrorDocument {
  error: { code: string; status?: number; message: string; hint?: string; fields?: FieldViolation[] };
}

export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exit: ExitStatus,
    readonly hint?: string,
    readonly status?: number,
    readonly fields: FieldViolation[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const violations = (list: unknown): FieldViolation[] =>
  Array.isArray(list)
    ? list
        .filter(isJsonObject)
        .map((f) => ({ field: String(f['field'] ?? ''), description: String(f['description'] ?? '') }))
    : [];

/** The REST status a catalogue code stands for: a JSON-RPC refusal is usually HTTP 200. */
const statusOf = (code: string | undefined, http: number): number =>
  code !== undefined && code in REST_API_STATUS ? REST_API_STATUS[code as keyof typeof REST_API_STATUS] : http;

/** The hub answered with an error: a REST error body, or a JSON-RPC error read through its ErrorInfo. */
/** A failure that may pass: the hub unreachable, busy (429) or failing for now (5xx): worth trying again. */
export const mayPass = (error: unknown): boolean =>
  error instanceof UnreachableError ||
  (error instanceof HubAnswerError && (error.status === 429 || (error.status ?? 0) >= 500));

export class HubAnswerError extends CliError {
  /** The refusal as the hub put it (wire field names, no CLI flags): what a door other than the CLI shows (the MCP door). */
  readonly inHubWords: { message: string; hint?: string | undefined; fields: FieldViolation[] };

  constructor(http: number, body: unknown, sentToken: boolean, words: FieldWords = {}) {
    const error = isJsonObject(body) && isJsonObject(body['error']) ? body['error'] : {};
    const details = Array.isArray(error['data']) ? error['data'].filter(isJsonObject) : [];
    const info = details.find((d) => String(d['@type'] ?? '').endsWith('google.rpc.ErrorInfo'));
    const badRequest = details.find((d) => String(d['@type'] ?? '').endsWith('google.rpc.BadRequest'));
    const code = str(error['code']) ?? str(info?.['reason']);
    const hubHint =
      str(error['hint']) ?? (isJsonObject(info?.['metadata']) ? str(info['metadata']['hint']) : undefined);
    // The hub's hint speaks HTTP ("send Authorization: …"); with no token sent, say it in the CLI's terms.
    const hint =
      http === 401 && !sentToken
        ? 'Pass --token, set MUSTER_TOKEN, or run muster login'
        : hubHint && inCliWords(hubHint, words);
    const hubFields = [...violations(error['fields']), ...violations(badRequest?.['fieldViolations'])];
    const fields = hubFields.map((f) => ({
      field: flagOfField(f.field, words),
      description: inCliWords(f.description, words),
    }));
    const hubMessage = str(error['message']) ?? `the hub answered HTTP ${http}`;
    super(code ?? `HTTP_${http}`, inCliWords(hubMessage, words), EXIT.refused, hint, statusOf(code, http), fields);
    this.inHubWords = { message: hubMessage, hint: hubHint, fields: hubFields };
    this.answer = { http, body, sentToken };
  }

  private readonly answer: { http: number; body: unknown; sentToken: boolean };

  /** The same refusal with a command's own fields named by its flags and arguments (`answer`'s body is its `<text...>`). */
  inWordsOf(words: FieldWords): HubAnswerError {
    return new HubAnswerError(this.answer.http, this.answer.body, this.answer.sentToken, words);
  }
}

/** The same failure with another hint (a suggestion added to what the hub said). */
export const withHint = (error: CliError, hint: string): CliError =>
  new CliError(error.code, error.message, error.exit, hint, error.status, error.fields);

/** The hub could not be reached, or what answered was not a hub. */
export class UnreachableError extends CliError {
  constructor(message: string, code: 'UNREACHABLE' | 'NOT_A_HUB' = 'UNREACHABLE') {
    super(
      code,
      message,
      EXIT.unreachable,
      code === 'NOT_A_HUB'
        ? 'Check --url (or MUSTER_URL, or the profile): it must be the base URL of a Muster hub'
        : 'Check --url and that the hub is running',
    );
  }
}

/** A mistake in the command line itself, found before anything is sent. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string, code: 'USAGE' | 'BAD_JSON' = 'USAGE') {
    super(code, message, EXIT.usage, hint);
  }
}

/** Any failure as a CliError: a local hub check (review preview) counts as the hub's refusal. */
export function asCliError(failure: unknown): CliError {
  if (failure instanceof CliError) return failure;
  if (isHubError(failure)) return new HubAnswerError(restStatus(failure), restErrorBody(failure), true);
  return new CliError('CLIENT_ERROR', failure instanceof Error ? failure.message : String(failure), EXIT.refused);
}

function errorDocument(error: CliError): ErrorDocument {
  return {
    error: {
      code: error.code,
      ...(error.status !== undefined ? { status: error.status } : {}),
      message: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
      ...(error.fields.length > 0 ? { fields: error.fields } : {}),
    },
  };
}

/** The readable form: one line (with the fields the message does not already name), then at most one hint line. */
function readable(error: CliError): string {
  const fields = error.fields
    .filter((f) => !error.message.includes(f.description))
    .map((f) => `${f.field}: ${f.description}`);
  const line = `muster: ${error.message}${fields.length > 0 ? ` (${fields.join('; ')})` : ''}`;
  return `${line}\n${error.hint ? `  hint: ${error.hint}\n` : ''}`;
}

/**
 * Prints any failure of a client command and sets the exit status: the error document on stdout
 * with --json (on one line among JSON Lines), else the readable lines on stderr.
 */
export function printError(failure: unknown, json: boolean | 'line'): void {
  const error = asCliError(failure);
  process.exitCode = error.exit;
  if (json) process.stdout.write(`${JSON.stringify(errorDocument(error), null, json === 'line' ? undefined : 2)}\n`);
  else process.stderr.write(readable(error));
}
