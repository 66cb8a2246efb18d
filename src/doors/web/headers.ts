import Negotiator from 'negotiator';

/**
 * What every page, asset and stream of the web feed is sent with: a Content-Security-Policy that
 * lets only the hub's own script and style run (no inline script or style, nothing from elsewhere),
 * no sniffing, no referrer, no framing. No CORS header is ever set: other sites may not read the feed.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SAFETY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** What the hub's base answers, in its order of preference when a client takes several equally: JSON first. */
const OFFERED = ['application/json', 'application/a2a+json', 'text/html', 'application/xhtml+xml'];
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Whether an Accept header asks for HTML before JSON (a browser), by the header's own weights
 * (negotiator). `*\/*` alone (curl, SDK clients) takes JSON, so it is not a browser.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const chosen = new Negotiator({ headers: { accept } }).mediaType(OFFERED);
  return chosen !== undefined && HTML_TYPES.has(chosen);
}
