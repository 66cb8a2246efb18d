/**
 * How the memory kind reads text: words for recall, `#tags` in a card's text, and the slug a
 * claimed author name is stored as. The store's full-text index matches what these give it.
 */
import { searchWords } from '../../wire/search-words.js';

export { searchWords };

const TAG = /(?:^|\s)#([\p{L}\p{N}][\p{L}\p{N}_-]*)/gu;

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
