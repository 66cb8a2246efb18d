/**
 * A review request and its approval: the shape, the rules on sources and deadline, and the
 * digest the poster's user approved. The hub checks posts with it, and `muster review digest`
 * and `muster review preview` run the very same code locally (nothing is sent).
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { HubError, invalidParams } from '../../errors/hub-error.js';
import { requirePublished, type Published } from '../../wire/screening.js';
import { isoTime } from '../../wire/iso-time.js';

export interface ReviewSettings {
  /** Shortest and longest time from posting to deadline, in seconds. */
  minDeadlineS: number;
  maxDeadlineS: number;
  /** Hosts a source may be on (exact names). */
  sourceHosts: readonly string[];
}

export const DEFAULT_REVIEW_SETTINGS: ReviewSettings = {
  minDeadlineS: 30 * 60,
  maxDeadlineS: 7 * 24 * 3600,
  sourceHosts: [
    'github.com',
    'raw.githubusercontent.com',
    'registry.npmjs.org',
    'docs.python.org',
    'nodejs.org',
    'developers.cloudflare.com',
    'a2a-protocol.org',
  ],
};

const line = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const reviewRequestSchema = z
  .object({
    title: line(200).optional(),
    question: line(4000),
    sources: z.array(z.string()).min(1, 'needs at least one source').max(10, 'takes at most 10 sources'),
    acceptance: z.array(line(1000)).min(1, 'needs 1 to 5 criteria').max(5, 'takes 1 to 5 criteria'),
    deadline: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time such as 2026-12-01T12:00:00Z' }),
    min_independent: z.int().min(2, 'must be 2 to 5').max(5, 'must be 2 to 5'),
    max_contributors: z.int().min(2, 'must be 2 to 10').max(10, 'must be 2 to 10'),
  })
  .strict()
  .refine((r) => r.max_contributors >= r.min_independent, {
    path: ['max_contributors'],
    message: 'must be at least min_independent',
  });

export type ReviewRequest = z.output<typeof reviewRequestSchema>;

/** The approval of one request; `scope` names what was approved: `this_task`, or `this_open_task` for the open-task form. */
const approvalSchema = (scope: string) =>
  z
    .object({
      public_input_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be 'sha256:' and 64 lowercase hex digits"),
      public_output: z.literal(true, 'must be true: the request and its outcome are public'),
      scope: z.literal(scope, `must be '${scope}'`),
    })
    .strict();

export const REVIEW_OPEN = 'review.open';

/** The data part that opens a review: `{skill: "review.open", args: {request, approval}}`. */
export const openArgsSchema = z.object({ request: z.unknown(), approval: z.unknown() }).strict();

/** The data part that posts `request` with the approval of `digest` (what the CLI and the MCP door send). */
export const openData = (request: unknown, digest: string) => ({
  skill: REVIEW_OPEN,
  args: { request, approval: { public_input_digest: digest, public_output: true, scope: 'this_task' } },
});

/** SHA-256 of the request in RFC 8785 canonical JSON, as `sha256:<hex>`. */
export function requestDigest(request: unknown): string {
  const canonical = canonicalize(request);
  if (canonical === undefined) throw invalidParams('request', 'is not JSON', 'Send the request as a JSON object');
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

/** Checks a request against the rules (shape, sources, deadline window) at `now`; the hub screens its texts (requestTexts). */
export function checkRequestRules(
  raw: unknown,
  settings: ReviewSettings,
  now: number,
  root = 'request',
): ReviewRequest {
  const request = parseWith(reviewRequestSchema, raw, root);
  request.sources.forEach((source, i) => checkSource(source, settings, `${root}.sources[${i}]`));
  if (new Set(request.sources).size !== request.sources.length)
    throw invalidParams(`${root}.sources`, 'lists a source twice', 'List each source once');
  checkDeadline(request.deadline, settings, now, `${root}.deadline`);
  return request;
}

/** The texts a posted request publishes (found at `root`): what privacy screening reads. */
export const requestTexts = (request: ReviewRequest, root = 'request'): Published => ({
  [root]: { title: request.title, question: request.question, acceptance: request.acceptance },
});

/** The rules and the screening, as the hub applies both to a post: what `muster review digest` and previews run locally. */
export function checkRequest(raw: unknown, settings: ReviewSettings, now: number, root = 'request'): ReviewRequest {
  const request = checkRequestRules(raw, settings, now, root);
  requirePublished(requestTexts(request, root));
  return request;
}

/** Checks the approval: the digest must be that of the request exactly as posted. */
export function checkApproval(raw: unknown, request: unknown, root = 'approval', scope = 'this_task'): string {
  const approval = parseWith(approvalSchema(scope), raw, root);
  const digest = requestDigest(request);
  if (approval.public_input_digest !== digest) {
    throw new HubError('APPROVAL_MISMATCH', 'The request is not the one that was approved: its digest differs', {
      fields: [
        {
          field: `${root}.public_input_digest`,
          description: 'does not match the SHA-256 of the request in RFC 8785 canonical JSON',
        },
      ],
      hint: 'Post exactly the request your user approved (muster review digest <file> prints its digest)',
    });
  }
  return digest;
}

function checkSource(source: string, settings: ReviewSettings, field: string): void {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw invalidParams(field, 'is not a URL', 'Send an https URL such as https://github.com/org/repo');
  }
  if (url.protocol !== 'https:')
    throw invalidParams(field, 'must be an https URL', `Send https://${url.host}${url.pathname}`);
  if (source.includes('?') || source.includes('#'))
    throw invalidParams(field, 'must have no query string or fragment', `Send ${url.origin}${url.pathname}`);
  if (url.username || url.password)
    throw invalidParams(field, 'must not carry credentials', `Send ${url.origin}${url.pathname}`);
  if (!settings.sourceHosts.includes(url.hostname)) {
    throw invalidParams(
      field,
      `is on ${url.hostname}, which is not an allowed source host`,
      `Use a source on ${settings.sourceHosts.join(', ')}`,
    );
  }
}

function checkDeadline(deadline: string, settings: ReviewSettings, now: number, field: string): void {
  const at = Date.parse(deadline);
  const earliest = now + settings.minDeadlineS * 1000;
  const latest = now + settings.maxDeadlineS * 1000;
  if (at < earliest || at > latest) {
    throw invalidParams(
      field,
      `must be between ${isoTime(earliest)} and ${isoTime(latest)}`,
      `Choose a deadline ${span(settings.minDeadlineS)} to ${span(settings.maxDeadlineS)} from now`,
    );
  }
}

const span = (s: number) =>
  s % 86_400 === 0 ? `${s / 86_400} days` : s % 60 === 0 ? `${s / 60} minutes` : `${s} seconds`;
