import { isIpAddress, nonPublicReason } from '../delivery/address-policy.js';
import { HubError } from '../errors/hub-error.js';
import { OPERATOR_TOKEN_PREFIX, TOKEN_PREFIX } from '../identity/tokens.js';

/**
 * Privacy screening: heuristics that spot private information (credentials, personal
 * addresses, local paths, internal URLs, pasted logs) in text an agent wants to publish.
 * Pure and synchronous. The rule set is documented in docs/privacy-screening.md; keep the two
 * in step. Every regex is bounded or anchored so a 20 000-character text stays linear.
 */

export interface ScreeningIssue {
  /** The rule's id, e.g. 'email-address'. */
  rule: string;
  /** Where it was found, as a path into the screened value: 'summary', 'conditions[2]'. */
  field: string;
  /** For people: what was found (never echo the secret itself; at most a masked hint like 'ghp_…'). */
  description: string;
}

export interface ScreeningRule {
  id: string;
  /** One line for docs and error messages. */
  what: string;
}

interface Rule extends ScreeningRule {
  /** A description of the first finding in `text`, or undefined when there is none. */
  find(text: string): string | undefined;
}

/** The first match of a global `re` that `ok` accepts. */
function firstMatch(
  text: string,
  re: RegExp,
  ok: (m: RegExpMatchArray) => boolean = () => true,
): RegExpMatchArray | undefined {
  for (const m of text.matchAll(re)) if (ok(m)) return m;
  return undefined;
}

/** Random tokens nearly always mix letters and digits; words and kebab-case names do not. */
const looksRandom = (s: string): boolean => /\d/.test(s) && /[A-Za-z]/.test(s);

// --- private-key ---------------------------------------------------------------------------

/** The header alone is enough: a truncated key is still a leaked key. */
const PEM_PRIVATE_KEY = /-----BEGIN ((?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?: BLOCK)?-----/;

// --- api-key -------------------------------------------------------------------------------

/**
 * Well-known credential formats. Group 1 is the public prefix, the only part a description
 * shows. `random`: the prefix also starts ordinary words, so the rest must look random.
 */
const KEY_FORMATS: readonly { name: string; re: RegExp; random?: true }[] = [
  { name: 'an AWS access key id', re: /\b(AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: 'a GitHub token', re: /\b(gh[pousr]_|github_pat_)\w{30,}/g },
  { name: 'a Slack token', re: /\b(xox[abprs]-)[A-Za-z0-9-]{10,}/g },
  { name: 'an OpenAI/Anthropic-style API key', re: /\b(sk-(?:ant-)?)[\w-]{20,}/g, random: true },
  { name: 'a Google API key', re: /\b(AIza)[\w-]{35}/g },
  { name: 'a Stripe secret key', re: /\b([sr]k_live_)[A-Za-z0-9]{10,}/g },
  { name: 'an npm token', re: /\b(npm_)[A-Za-z0-9]{36}\b/g },
  { name: 'a Muster token', re: new RegExp(String.raw`\b(${TOKEN_PREFIX}|${OPERATOR_TOKEN_PREFIX})[\w-]{20,}`, 'g') },
];

function findApiKey(text: string): string | undefined {
  for (const { name, re, random } of KEY_FORMATS) {
    const m = firstMatch(text, re, (m) => !random || looksRandom(m[0].slice(m[1]?.length)));
    if (m) return `${name} (${m[1]}…)`;
  }
  return undefined;
}

// --- secret-assignment ---------------------------------------------------------------------

/**
 * `key: value` / `key = value` where the key names a secret, with up to four prefix words
 * (DB_PASSWORD, x-api-key, aws_secret_access_key); a key may start after `_` or `-`, so longer
 * names still match. `\b` after the key keeps `max_tokens` and `password_hash` out.
 * Group 1 is the key, group 2 the value (quoted values may hold spaces).
 */
const SECRET_ASSIGNMENT =
  /(?<![a-z0-9])((?:[a-z0-9]+[_-]){0,4}(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization))\b["']?[ \t]*(?::=|=>|[:=])[ \t]*(?:(?:basic|bearer|token)[ \t]+)?("[^"\n]*"|'[^'\n]*'|[^\s"'`,;]+)/gi;

/** Values that stand for a secret without being one: placeholders, masks, variables. */
const PLACEHOLDER =
  /^(?:<.*>|\[.*\]|\{\{.*\}\}|\$\{.*\}|\$\w+|%\w+%|[*x•._-]+|your[\w-]*|.*(?:\*{3}|•{3}|redacted|example|placeholder|changeme|dummy).*|(?:process\.env|os\.environ|os\.getenv)\b.*|required|optional|string|null|undefined|none|true|false)$/i;

/** Code that computes a secret (`req.headers.authorization`, `z.string().min(8)`) is not one. */
const CODE_REFERENCE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\.[A-Za-z_$][\w$]*|\(.*)$/;

function isSecretValue(raw: string): boolean {
  const value = raw.replace(/^(["'])(.*)\1$/, '$2').trim();
  return value.length >= 8 && !PLACEHOLDER.test(value) && !CODE_REFERENCE.test(value);
}

function findSecretAssignment(text: string): string | undefined {
  const m = firstMatch(text, SECRET_ASSIGNMENT, (m) => isSecretValue(m[2] ?? ''));
  return m ? `a value assigned to "${m[1]}"` : undefined;
}

// --- bearer-token --------------------------------------------------------------------------

/** RFC 6750 token alphabet, 16+ characters. */
const BEARER = /\bbearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)/gi;
/** Header and payload are base64url JSON objects, so the first segment starts `eyJ` ('{"'). */
const JWT = /\beyJ[\w-]{10,}\.[\w-]{2,}\.[\w-]*/;

function findBearerToken(text: string): string | undefined {
  if (JWT.test(text)) return 'a JWT (eyJ…)';
  return firstMatch(text, BEARER, (m) => looksRandom(m[1] ?? '')) ? 'a bearer token (Bearer …)' : undefined;
}

// --- email-address -------------------------------------------------------------------------

/**
 * Parts are length-bounded (RFC 5321 limits) so long non-address runs cannot backtrack badly.
 * The lookbehind skips URL userinfo (https://user:pass@host), which private-url reports.
 */
const EMAIL = /\b(?<!\/\/[^\s/@]{0,64})([A-Za-z0-9._%+-]{1,64})@((?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24})\b/g;
/** Domains reserved for examples and tests (RFC 2606, RFC 6761): nobody's mailbox. */
const RESERVED_DOMAIN = /(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost)$/i;

function findEmail(text: string): string | undefined {
  // `git@host` is the SSH login of a code host, not a person's address.
  const m = firstMatch(text, EMAIL, (m) => m[1] !== 'git' && !RESERVED_DOMAIN.test(m[2] ?? ''));
  return m ? 'an e-mail address' : undefined;
}

// --- local-path and private-url share the URL pattern --------------------------------------

/** A web URL in text; group 1 is its authority (userinfo, host, port). */
const WEB_URL = /\b(?:https?|wss?|ftp):\/\/([^\s/?#"'<>`]*)[^\s"'<>`]*/gi;

/**
 * Roots that only exist on a machine. The lookbehind keeps relative paths (src/tmp/x) and URL
 * paths out; web URLs are also blanked first, since their paths may legitimately hold /tmp/.
 * Group 1 is the root, the only part a description shows (never the user name).
 */
const LOCAL_PATH =
  /(?<![\w./\\-])(\/(?:home|Users|root|etc|var|tmp|private)\/|~\/|file:\/\/|[A-Za-z]:\\|\\\\(?=[\w.-]+\\))(?=[\w.~/$-])/;

function findLocalPath(text: string): string | undefined {
  const m = LOCAL_PATH.exec(text.replace(WEB_URL, ' '));
  return m ? `a local file path (${m[1]}…)` : undefined;
}

/** Names that only resolve inside a network (RFC 6761, RFC 8375 and common private suffixes). */
const PRIVATE_SUFFIX = /(?:^|\.)(localhost|local|internal|lan|corp|home\.arpa)$/;

/** Why the URL with this authority is private, or undefined. */
function privateAuthority(authority: string): string | undefined {
  let url: URL;
  try {
    // Trailing punctuation belongs to the sentence, not the URL. Parsing as http:// gets the
    // WHATWG host rules, which also normalize odd IPv4 forms (http://0x7f.1/ is 127.0.0.1).
    url = new URL(`http://${authority.replace(/[)}>.,;:!?]+$/, '')}`);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '') return 'a URL with credentials (user:…@) in it';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (isIpAddress(host)) {
    const reason = nonPublicReason(host);
    return reason === undefined ? undefined : `a URL to ${reason}`;
  }
  const suffix = PRIVATE_SUFFIX.exec(host)?.[1];
  if (suffix === undefined) return undefined;
  return suffix === host ? `a URL to ${host}` : `a URL to a *.${suffix} host`;
}

function findPrivateUrl(text: string): string | undefined {
  for (const m of text.matchAll(WEB_URL)) {
    const reason = privateAuthority(m[1] ?? '');
    if (reason) return reason;
  }
  return undefined;
}

// --- raw-log -------------------------------------------------------------------------------

/** A line starting with an ISO timestamp or an upper-case level. `[ \t]`, not `\s`, so no match spans lines. */
const LOG_LINE = /^[ \t]*\[?(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\b)/gm;
/** A JavaScript or Java stack frame: `    at fn (file:line:col)`. */
const STACK_FRAME = /^[ \t]+at [^\n]*:\d+(?::\d+)?\)?[ \t]*$/gm;
const PY_TRACEBACK = /^Traceback \(most recent call last\):/m;

/** Thresholds keep a quoted log line or a sentence starting "ERROR" from counting as a paste. */
function findRawLog(text: string): string | undefined {
  if (PY_TRACEBACK.test(text)) return 'a Python traceback';
  const frames = text.match(STACK_FRAME)?.length ?? 0;
  if (frames >= 2) return `a stack trace (${frames} frames)`;
  const lines = text.match(LOG_LINE)?.length ?? 0;
  return lines >= 3 ? `a pasted log (${lines} log lines)` : undefined;
}

// --- the rule table ------------------------------------------------------------------------

const RULES: readonly Rule[] = [
  {
    id: 'private-key',
    what: 'PEM private key blocks (PKCS #8, RSA, EC, OpenSSH, PGP)',
    find: (text) => {
      const m = PEM_PRIVATE_KEY.exec(text);
      return m ? `a PEM private key block (${m[1]?.trim() || 'PKCS #8'})` : undefined;
    },
  },
  {
    id: 'api-key',
    what: 'well-known credential formats (AWS, GitHub, Slack, OpenAI/Anthropic, Google, Stripe, npm, Muster tokens)',
    find: findApiKey,
  },
  {
    id: 'secret-assignment',
    what: 'a password, secret, token, API key or Authorization header given a real-looking value',
    find: findSecretAssignment,
  },
  { id: 'bearer-token', what: 'bearer tokens and JWTs', find: findBearerToken },
  {
    id: 'email-address',
    what: 'e-mail addresses (except reserved example domains and git@ SSH logins)',
    find: findEmail,
  },
  {
    id: 'local-path',
    what: 'file paths on a machine (home directories, /etc, /var, /tmp, C:\\, ~/, file:// URLs)',
    find: findLocalPath,
  },
  {
    id: 'private-url',
    what: 'URLs to localhost, private networks or internal host names, and URLs carrying credentials',
    find: findPrivateUrl,
  },
  { id: 'raw-log', what: 'pasted raw logs (3+ log lines) and stack traces', find: findRawLog },
];

export const SCREENING_RULES: readonly ScreeningRule[] = RULES.map(({ id, what }) => ({ id, what }));

// --- the walk ------------------------------------------------------------------------------

/**
 * Walks every string in `value` (objects, arrays, nested), with `path` as the root's field name
 * ('' for top level: then keys are used bare), and returns every issue found (at most one per
 * rule per field). Object keys are screened too, reported at the field they name.
 */
export function screen(value: unknown, path = ''): ScreeningIssue[] {
  const issues: ScreeningIssue[] = [];
  const reported = new Set<string>();
  const check = (text: string, field: string): void => {
    for (const rule of RULES) {
      const description = rule.find(text);
      const key = `${rule.id}\u0000${field}`;
      if (description === undefined || reported.has(key)) continue;
      reported.add(key);
      issues.push({ rule: rule.id, field, description });
    }
  };
  // Only the current chain of ancestors is tracked: a cycle stops, a shared object is walked at each path.
  const ancestors = new Set<object>();
  const walk = (node: unknown, field: string): void => {
    if (typeof node === 'string') return check(node, field);
    if (typeof node !== 'object' || node === null || ancestors.has(node)) return;
    ancestors.add(node);
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${field}[${i}]`));
    } else {
      for (const [key, item] of Object.entries(node)) {
        const child = field === '' ? key : `${field}.${key}`;
        check(key, child);
        walk(item, child);
      }
    }
    ancestors.delete(node);
  };
  walk(value, path);
  return issues;
}

/**
 * The texts a write makes public, each under the field the caller sent it at ('request',
 * 'message.parts', 'args.cards'): a kind declares them (Opening.published, Change.published) and
 * the hub screens them when the task is public; boards and profiles declare theirs the same way.
 */
export type Published = Readonly<Record<string, unknown>>;

/** Refuses (PRIVATE_CONTENT, every issue at its field) when screening finds anything in the published texts. */
export function requirePublished(published: Published): void {
  const issues = Object.entries(published).flatMap(([field, value]) => screen(value, field));
  if (issues.length > 0) throw privateContent(issues);
}

/** Screening issues as the one refusal every kind gives for them: each issue is a field violation. */
function privateContent(issues: readonly ScreeningIssue[]): HubError {
  const rules = [...new Set(issues.map((i) => i.rule))].join(', ');
  return new HubError(
    'PRIVATE_CONTENT',
    `Refused: ${issues.length} part(s) look private (${rules}); nothing was stored`,
    {
      fields: issues.map((i) => ({ field: i.field, description: `${i.rule}: ${i.description}` })),
      hint: 'Remove credentials, tokens, e-mail addresses, local paths, private URLs and raw logs, and send it again',
    },
  );
}
