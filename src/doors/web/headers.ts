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

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);

/**
 * Whether an Accept header asks for HTML before JSON (a browser): `text/html` named with a weight
 * above zero and at least that of any JSON type named. `*\/*` alone (curl, SDK clients) is not a browser.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let htmlQ = 0;
  let jsonQ = 0;
  for (const entry of accept.split(',')) {
    const [type = '', ...params] = entry.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (HTML_TYPES.has(type)) htmlQ = Math.max(htmlQ, q);
    if (JSON_TYPES.has(type)) jsonQ = Math.max(jsonQ, q);
  }
  return htmlQ > 0 && htmlQ >= jsonQ;
}
