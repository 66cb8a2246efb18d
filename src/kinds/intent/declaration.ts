/**
 * What a declaration says: the text part is the intent (first line the title, the rest the
 * why), one data part carries the footprint and the options. Anything else is refused with a
 * sentence saying what to send instead, before anything is stored.
 */
import { z } from 'zod';
import { isJsonObject, type Message } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import { HubError } from '../../errors/hub-error.js';
import { PRIORITY } from './limits.js';

export { PRIORITY };

const TITLE_MAX = 200;
const WHY_MAX = 8000;

export interface Declaration {
  title: string;
  why?: string;
  footprint: string[];
  acceptance?: string[];
  priority: number;
  force: boolean;
}

const FORMAT =
  'Send one text part (first line the title, the rest why) and one data part {"footprint": ["src/links/**"], "acceptance"?: [...], "priority"?: 1-10, "force"?: true}';

const refuse = (field: string, description: string, message: string): HubError =>
  new HubError('INVALID_PARAMS', message, { fields: [{ field, description }], hint: FORMAT });

const optionsSchema = z
  .object({
    footprint: z
      .array(
        z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
        'must be a list of paths or globs',
      )
      .min(1, 'must name at least one path or glob')
      .max(100, 'must name at most 100 paths or globs'),
    acceptance: z
      .array(z.string().trim().min(1).max(1000, 'must be at most 1000 characters'), 'must be a list of checks')
      .max(50, 'must hold at most 50 checks')
      .optional(),
    priority: z
      .number('must be a whole number from 1 to 10')
      .int('must be a whole number from 1 to 10')
      .min(PRIORITY.min, 'must be from 1 to 10')
      .max(PRIORITY.max, 'must be from 1 to 10')
      .optional(),
    force: z.boolean('must be true or false').optional(),
  })
  .strict();

/** Reads a declaration from a message sent to the space `space`. */
export function readDeclaration(message: Message, space: string): Declaration {
  if (message.contextId !== undefined && message.contextId !== space) {
    throw refuse(
      'message.contextId',
      `must be the space's name, ${space}`,
      `Intents in this space have contextId "${space}": send that, or leave contextId out`,
    );
  }
  const at = (i: number) => `message.parts[${i}]`;
  const texts: string[] = [];
  let data: { index: number; value: unknown } | undefined;
  message.parts.forEach((part, i) => {
    if (part.text !== undefined) texts.push(part.text);
    else if (part.data !== undefined && data === undefined) data = { index: i, value: part.data };
    else if (part.data !== undefined)
      throw refuse(at(i), 'a second data part', 'Send the footprint and options in one data part');
    else
      throw refuse(
        at(i),
        'a file part',
        'A space reads text and JSON data parts only: describe the work in text, and name files in the footprint',
      );
  });
  const [first = '', ...rest] = texts.join('\n').trim().split('\n');
  const title = first.trim();
  if (title === '')
    throw refuse(
      'message.parts',
      'no text part with the intent',
      'Send the intent as a text part: its first line the title, the rest why',
    );
  if (title.length > TITLE_MAX)
    throw refuse(
      'message.parts',
      `the title (first line) must be at most ${TITLE_MAX} characters`,
      'Shorten the first line; put the detail on the lines after it',
    );
  const why = rest.join('\n').trim();
  if (why.length > WHY_MAX)
    throw refuse('message.parts', `the why must be at most ${WHY_MAX} characters`, 'Shorten the text after the title');
  if (!data)
    throw refuse(
      'message.parts',
      'no data part with the footprint',
      'Add a data part {"footprint": [...]} naming the paths or globs the work will touch',
    );
  if (!isJsonObject(data.value))
    throw refuse(`${at(data.index)}.data`, 'must be a JSON object', 'Send a data part {"footprint": [...]}');
  const options = parseWith(optionsSchema, data.value, `${at(data.index)}.data`);
  return {
    title,
    ...(why ? { why } : {}),
    footprint: options.footprint,
    ...(options.acceptance ? { acceptance: options.acceptance } : {}),
    priority: options.priority ?? PRIORITY.min,
    force: options.force ?? false,
  };
}
