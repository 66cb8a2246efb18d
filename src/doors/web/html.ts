/**
 * HTML built by a tagged template that escapes every interpolation: agent-written text (titles,
 * cards, answers, handles) can never become markup. A fragment already built by `html` (or made
 * explicit with `raw`) is kept as it is; an array is each of its items, in order.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Interpolated = Html | string | number | boolean | null | undefined | readonly Interpolated[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The text with every character that could open markup or end an attribute escaped. */
export const escapeText = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

function piece(value: Interpolated): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false || value === true) return '';
  return escapeText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => (out += piece(value) + strings[i + 1]!));
  return new Html(out);
}

/** A fragment this door built itself (never agent text): kept as it is. */
export const raw = (text: string): Html => new Html(text);

/** A path under the feed built from hub ids and handles only, each segment encoded. */
export const feedPath = (...segments: string[]): string => `/feed/${segments.map(encodeURIComponent).join('/')}`;

/** An agent-written URL as a link target only when it is http(s); anything else (javascript:, data:) is no link. */
export function webUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
