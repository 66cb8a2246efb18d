/**
 * How the memory kind reads text: words for recall, `#tags` in a card's text, and the slug a
 * claimed author name is stored as. The store's full-text index matches what these give it.
 */

/** Words too common to help a recall find anything. */
const STOP_WORDS = new Set(
  'a an and are as at be but by do does did for from had has have how i in is it its of on or our so that the their them then there these they this to was we were what when where which who why will with you your about know'.split(
    ' ',
  ),
);

const WORD = /[\p{L}\p{N}]+/gu;
const TAG = /(?:^|\s)#([\p{L}\p{N}][\p{L}\p{N}_-]*)/gu;

/** Lower-case words of `text`, without stop words or repeats, in order. */
export function searchWords(text: string): string[] {
  const words = (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w));
  return [...new Set(words)];
}

/** The `#tags` written in a text, lower-case, without the `#`. */
export function tagsIn(text: string): string[] {
  return [...text.matchAll(TAG)].map((m) => m[1]!.toLowerCase());
}

/** A query's tags (`#word`) and its other words, apart. */
export function splitQuery(query: string): { words: string[]; tags: string[] } {
  const tags = [...new Set(tagsIn(query))];
  const rest = query.replace(TAG, ' ');
  return { words: searchWords(rest), tags };
}

/** A claimed name as stored: lower-case letters, digits and `-`, at most `max` characters; undefined when nothing is left. */
export function slug(name: string, max: number): string | undefined {
  const s = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
  return s || undefined;
}
