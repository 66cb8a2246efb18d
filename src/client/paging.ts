/** Pages as the CLI prints them: `{items, nextCursor?}` whatever list the hub answered, and how to ask for the next one. */
import { InvalidArgumentError, type Command } from 'commander';
import { wholeNumber as wholeNumberIn } from '../config/values.js';
import type { Page, RestPage } from './wire.js';

/** A commander parser for a whole number of at least `min` (and at most `max`, when given): the settings' own rule. */
export const wholeNumber = (min: number, max?: number) => {
  const parse = wholeNumberIn(min, max);
  return (value: string): number => {
    const n = parse(value);
    if (n === undefined)
      throw new InvalidArgumentError(
        max === undefined ? `must be a whole number, ${min} or more` : `must be a whole number from ${min} to ${max}`,
      );
    return n;
  };
};

/** The most items a page holds (the hub's own cap). */
const MAX_PAGE = 50;

/** --limit and --cursor, as every paged command takes them. */
export const pageOptions = (command: Command, what: string): Command =>
  command
    .option('--limit <n>', `${what} per page (1 to ${MAX_PAGE}, default 20)`, wholeNumber(1, MAX_PAGE))
    .option('--cursor <cursor>', 'the page after this cursor (printed when there are more)');

/** A REST page (`{data, hasMore, cursor?}`) in the CLI's one page shape. */
export const pageOf = <T>(page: RestPage<T>): Page<T> => ({
  items: page.data,
  ...(page.hasMore && page.cursor ? { nextCursor: page.cursor } : {}),
});

/** The command that prints the next page, or undefined on the last one. */
export const nextCommand = (words: string[], page: Page<unknown>): string | undefined =>
  page.nextCursor ? ['muster', ...words, '--cursor', page.nextCursor].join(' ') : undefined;
