/**
 * How a search reads text into words, the same wherever a full-text index is asked: memory's
 * recall and the agent directory. Lower-cased in TypeScript (Unicode's rules), so SQLite and
 * PostgreSQL are handed the same words whatever their own lower() knows.
 */

/** Words too common to help a search find anything. */
const STOP_WORDS = new Set(
  'a an and are as at be but by do does did for from had has have how i in is it its of on or our so that the their them then there these they this to was we were what when where which who why will with you your about know'.split(
    ' ',
  ),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-case words of `text`, without stop words or repeats, in order. */
export function searchWords(text: string): string[] {
  const words = (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w));
  return [...new Set(words)];
}
