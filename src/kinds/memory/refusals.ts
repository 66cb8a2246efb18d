/**
 * Refusals in the caller's terms. A skill checks its args as if they came in an opening data
 * part, naming `message.parts[0].data.args…`; but a follow-up may send them bare
 * (`message.parts[0].data.board`), and a call in plain words sends no data part at all. These
 * move each refused arg to where the caller put the value; any other error is kept as it is.
 */
import type { JsonObject } from '../../a2a/types.js';
import { renamedFields } from '../../a2a/validate.js';
import { HubError, isHubError, type FieldViolation } from '../../errors/hub-error.js';
import { ARGS } from '../../wire/skill-call.js';

/** A field under the skill's args without the `…args.` before it (`cards[0].id`); undefined for a field elsewhere. */
function argPath(field: string): string | undefined {
  return field.startsWith(`${ARGS}.`) || field.startsWith(`${ARGS}[`)
    ? field.slice(ARGS.length).replace(/^\./, '')
    : undefined;
}

/** The arg a field names (`cards` of `cards[0].id`). */
const argOf = (path: string): string => /^[^.[]*/.exec(path)![0];

/**
 * A follow-up's refusal: an arg the follow-up gave (`given`) is named in its data part at `root`
 * (`message.parts[0].data`, or `….data.args` when it wrapped them in `args`); an arg kept from the
 * opening message is named as it was sent there.
 */
export function inFollowUp(error: unknown, given: readonly string[], root: string): unknown {
  return renamedFields(error, (field) => {
    const path = argPath(field);
    return path !== undefined && given.includes(argOf(path))
      ? `${root}${path.startsWith('[') ? '' : '.'}${path}`
      : field;
  });
}

/**
 * The args a refusal of bad input names, when it names only args in `among` (`connections` of
 * `…args.connections[0].to`); undefined for any other refusal.
 */
export function refusedArgs(error: unknown, among: readonly string[]): string[] | undefined {
  if (!isHubError(error) || error.code !== 'INVALID_PARAMS' || !error.fields.length) return undefined;
  const args = error.fields.map((f) => argPath(f.field)).map((path) => (path ? argOf(path) : undefined));
  return args.every((a) => a !== undefined && among.includes(a)) ? [...new Set(args as string[])] : undefined;
}

/** Where a message's text is: its one text part, or all of them (read as one text, a line each). */
export const textField = (partCount: number): string => (partCount === 1 ? 'message.parts[0].text' : 'message.parts');

/**
 * A refusal of plain words, named at the text (`at`) the args were read from: each says what the
 * text was read as (a title over 200 characters is the title's fault, not the text's length), and
 * the hint shows the data part that makes the call, whose refusals name each field.
 */
export function inText(error: unknown, at: string, skill: string, dataPart: JsonObject): unknown {
  if (!isHubError(error) || !error.fields.some((f) => argPath(f.field) !== undefined)) return error;
  const fields: FieldViolation[] = error.fields.map((f) => {
    const path = argPath(f.field);
    return path === undefined
      ? f
      : { field: at, description: `is read as ${skill}, whose ${path || 'args'} ${f.description}` };
  });
  // Field refusals write their message from their fields (invalidParams, parseWith): written again here.
  return new HubError(error.code, undefined, {
    fields,
    hint: `Send a shorter text, or the call as a data part, such as ${JSON.stringify(dataPart)}`,
    meta: error.meta,
  });
}
