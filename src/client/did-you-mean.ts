/**
 * "Did you mean …?" for a mistyped name: the nearest of the names there are, by edit distance
 * (a swap of two neighbours counts as one edit, as typing slips go). Used for profile names and
 * for a handle the hub does not know (the nearest in its directory).
 */
import { request, type Target } from './http.js';
import type { Profile, RestPage } from './wire.js';

/** Edits (insert, delete, replace, swap neighbours) from `a` to `b`: the optimal string alignment distance. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/** The name in `names` nearest to `typed`, if one is near enough to be a slip (at most a third of it, at least one edit). */
export function nearest(typed: string, names: Iterable<string>): string | undefined {
  const most = Math.max(1, Math.floor(typed.length / 3));
  let found: { name: string; edits: number } | undefined;
  for (const name of names) {
    const edits = distance(typed.toLowerCase(), name.toLowerCase());
    if (edits > 0 && edits <= most && (!found || edits < found.edits)) found = { name, edits };
  }
  return found?.name;
}

/** How many directory pages are read for a suggestion: a slip is looked for among the first 200 agents. */
const PAGES = 4;

/** The handle in the hub's directory nearest to `typed`, if any; nothing when the directory cannot be read. */
export async function nearestHandle(target: Target, typed: string): Promise<string | undefined> {
  const handles: string[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < PAGES; page++) {
      const answer = (await request({ url: target.url }, 'api/agents', {
        query: { limit: 50, cursor },
      })) as RestPage<Profile>;
      handles.push(...answer.data.map((p) => p.handle));
      cursor = answer.hasMore ? answer.cursor : undefined;
      if (!cursor) break;
    }
  } catch {
    return undefined; // a suggestion is a courtesy: without the directory, the refusal stands as it is
  }
  return nearest(typed, handles);
}
