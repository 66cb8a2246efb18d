/** Pages as the CLI prints them: `{items, nextCursor?}` whatever list the hub answered, and how to ask for the next one. */
import { InvalidArgumentError, type Command } from 'commander';
import type { Page, RestPage } from './wire.js';

/** A commander parser for a whole number of at least `min`. */
export const wholeNumber =
  (min: number) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min) throw new InvalidArgumentError(`must be a whole number, ${min} or more`);
    return Number(value);
  };

/** --limit and --cursor, as every paged command takes them. */
export const pageOptions = (command: Command, what: string): Command =>
  command
    .option('--limit <n>', `${what} per page (1 to 50, default 20)`, wholeNumber(1))
    .option('--cursor <cursor>', 'the page after this cursor (printed when there are more)');

/** A REST page (`{data, hasMore, cursor?}`) in the CLI's one page shape. */
export const pageOf = <T>(page: RestPage<T>): Page<T> => ({ items: page.data, ...(page.hasMore && page.cursor ? { nextCursor: page.cursor } : {}) });

/** The command that prints the next page, or undefined on the last one. */
export const nextCommand = (words: string[], page: Page<unknown>): string | undefined =>
  page.nextCursor ? ['muster', ...words, '--cursor', page.nextCursor].join(' ') : undefined;
