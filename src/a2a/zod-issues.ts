/**
 * Validation issues in people's words. Zod finds what is wrong; this turns each issue into field
 * violations that name the field as it was sent, say what is allowed and what to send instead.
 * No text of the library's own reaches a caller. Messages a schema writes itself are kept.
 */
import type { z } from 'zod';
import type { FieldViolation } from '../errors/hub-error.js';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

const NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  record: 'a JSON object',
  array: 'an array',
  tuple: 'an array',
  null: 'null',
  date: 'a date',
};
const noun = (expected: string): string => NOUNS[expected] ?? 'a value of another type';

/** What was sent, by its JSON type only: a value may be private, its type is not. */
function sentType(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'object') return 'an object';
  if (typeof input === 'boolean') return input ? 'true' : 'false';
  return noun(typeof input);
}

const quoted = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : String(v));
const oneOf = (values: readonly unknown[]): string =>
  values.length === 1 ? quoted(values[0]) : `one of ${values.map(quoted).join(', ')}`;
const plural = (n: number | bigint, one: string, many = `${one}s`) => `${n} ${Number(n) === 1 ? one : many}`;

const FORMATS: Record<string, string> = {
  url: 'an absolute URL such as https://example.com/path',
  datetime: 'an ISO 8601 timestamp such as 2026-01-01T00:00:00Z',
  date: 'a date such as 2026-01-01',
  email: 'an e-mail address',
  uuid: 'a UUID',
  base64: 'base64',
  base64url: 'base64url',
};

/** The object's own field names, read from the schema that refused a key. */
function fieldsOf(issue: RawIssue): string[] {
  const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * A field's own words for "missing" (and, if given, for a wrong type), as a schema's `error`
 * option; every other issue of the field is still described by `describe`.
 */
export const whenMissing = (required: string, wrongType?: string) => ({
  error: (issue: { code?: string; input?: unknown }) =>
    issue.code !== 'invalid_type' ? undefined : issue.input === undefined ? `is required: ${required}` : wrongType,
});

/** The error map zod calls for an issue whose schema wrote no message of its own: what is wrong, and what is allowed. */
export function describe(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? `is required: ${noun(issue.expected)}`
        : `must be ${noun(issue.expected)}, not ${sentType(issue.input)}`;
    case 'unrecognized_keys': {
      const known = fieldsOf(issue);
      return known.length > 0 ? `is not a field here; the fields are ${known.join(', ')}` : 'is not a field here';
    }
    case 'invalid_value': {
      const sent = typeof issue.input === 'string' && issue.input.length <= 40 ? `, not ${quoted(issue.input)}` : '';
      return `must be ${oneOf(issue.values)}${sent}`;
    }
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? 'must not be empty'
          : `must be at least ${plural(issue.minimum, 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must hold at least ${plural(issue.minimum, 'item')}`;
      return issue.inclusive === false ? `must be more than ${issue.minimum}` : `must be ${issue.minimum} or more`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${plural(issue.maximum, 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must hold at most ${plural(issue.maximum, 'item')}`;
      return issue.inclusive === false ? `must be less than ${issue.maximum}` : `must be ${issue.maximum} or less`;
    case 'invalid_format':
      if (issue.format === 'regex' && issue.pattern) return `must match the pattern ${issue.pattern}`;
      return `must be ${FORMATS[issue.format] ?? `in the ${issue.format} format`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_union':
      return 'matches none of the forms this field takes';
    case 'invalid_key':
      return 'has a key that is not allowed';
    case 'invalid_element':
      return 'holds an item that is not allowed';
    default:
      return 'is not allowed here';
  }
}

/** What to send instead, for the first refused field; never names the path, which a door may move. */
function instead(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `Add it: ${noun(issue.expected)}` : `Send ${noun(issue.expected)}`;
    case 'unrecognized_keys':
      return 'Remove the fields that are not listed (names are case-sensitive)';
    case 'invalid_value':
      return `Send ${oneOf(issue.values)}`;
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? 'Send a value that is not empty'
          : `Send at least ${plural(issue.minimum, 'character')}`;
      if (issue.origin === 'array') return `Send at least ${plural(issue.minimum, 'item')}`;
      return `Send ${issue.minimum} or more`;
    case 'too_big':
      if (issue.origin === 'string') return `Shorten it to ${plural(issue.maximum, 'character')} or fewer`;
      if (issue.origin === 'array') return `Send ${plural(issue.maximum, 'item')} or fewer`;
      return `Send ${issue.maximum} or less`;
    case 'invalid_format':
      return FORMATS[issue.format] ? `Send ${FORMATS[issue.format]}` : undefined;
    default:
      return undefined;
  }
}

const pathOf = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)),
    '',
  );

/** Of a union's options, the one that got furthest into the value (its deepest issue): the form the caller most likely meant. */
function closest(issue: Extract<Issue, { code: 'invalid_union' }>): Issue[] | undefined {
  const depth = (issues: Issue[]) => Math.max(...issues.map((i) => i.path.length));
  return issue.errors.filter((e) => e.length > 0).sort((a, b) => depth(b) - depth(a))[0];
}

interface Translated {
  violations: FieldViolation[];
  hint: string | undefined;
}

/** One issue as field violations (an unknown key each on its own), at `prefix` (a union's place). */
function translate(issue: Issue, prefix: readonly PropertyKey[] = []): Translated {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    return {
      violations: issue.keys.map((key) => ({ field: pathOf([...path, key]), description: issue.message })),
      hint: instead(issue),
    };
  }
  const branch = issue.code === 'invalid_union' ? closest(issue) : undefined;
  if (branch) return translate(branch[0]!, path);
  return { violations: [{ field: pathOf(path), description: issue.message }], hint: instead(issue) };
}

/** Every issue of a failed parse as field violations, and what to send instead for the first. */
export function violations(issues: readonly Issue[]): Translated {
  const translated = issues.map((issue) => translate(issue));
  return { violations: translated.flatMap((t) => t.violations), hint: translated[0]?.hint };
}
