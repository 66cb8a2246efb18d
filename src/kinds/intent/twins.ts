/**
 * Twin intents: the same work declared twice. Two declarations are twins when their titles have
 * the same words (case, punctuation and order ignored) and their footprints overlap, glob-aware:
 * `src/links/**` overlaps `src/links/limit.ts`, and two globs overlap when one's fixed base lies
 * under the other's.
 *
 * Overlap is not an equality, so no key can stand for it. The open key (intentOpenKey) stands
 * for the part of it that is one: the same title words and the same footprint entries as a set.
 */
import { createHash } from 'node:crypto';
import picomatch from 'picomatch';

/** A title's words, lowercased, without punctuation, sorted and unique. */
export function titleWords(title: string): string {
  const words = title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].sort().join(' ');
}

const normal = (path: string) => path.replace(/^\.\//, '').replace(/\/+$/, '');

/**
 * The intent's open key (TaskRecord.openKey): its space, title words and footprint entries
 * (normalised, as a sorted set), hashed so a footprint of 100 long globs still fits an index. Two
 * declarations with one key are always twins (an entry overlaps itself), so the store's refusal
 * of a second open intent with the key refuses only twins.
 */
export function intentOpenKey(space: string, title: string, footprint: readonly string[]): string {
  const entries = [...new Set(footprint.map(normal))].sort();
  return `intent:${createHash('sha256')
    .update(JSON.stringify([space, titleWords(title), entries]))
    .digest('hex')}`;
}

/** The open key of a stored intent, from its facts in `metadata.muster` (KindModule.openKeyOf); undefined when they are not there. */
export function storedOpenKey(metadata: Record<string, unknown> | undefined): string | undefined {
  const { space, title, footprint } = (metadata?.['muster'] ?? {}) as {
    space?: unknown;
    title?: unknown;
    footprint?: unknown;
  };
  if (typeof space !== 'string' || typeof title !== 'string' || !Array.isArray(footprint)) return undefined;
  return intentOpenKey(
    space,
    title,
    footprint.filter((f): f is string => typeof f === 'string'),
  );
}

/** Whether two footprint entries (paths or globs) can name the same file. */
function entriesOverlap(a: string, b: string): boolean {
  const [x, y] = [normal(a), normal(b)];
  if (x === y) return true;
  const scanX = picomatch.scan(x);
  const scanY = picomatch.scan(y);
  if (!scanX.isGlob && !scanY.isGlob) return x.startsWith(`${y}/`) || y.startsWith(`${x}/`); // a folder holds the file
  if (!scanX.isGlob) return picomatch.isMatch(x, y, { dot: true });
  if (!scanY.isGlob) return picomatch.isMatch(y, x, { dot: true });
  // Two globs: they can meet when one's fixed base is the other's, or lies under it.
  const [bx, by] = [scanX.base, scanY.base];
  return bx === by || bx === '' || by === '' || bx.startsWith(`${by}/`) || by.startsWith(`${bx}/`);
}

export function footprintsOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.some((x) => b.some((y) => entriesOverlap(x, y)));
}
