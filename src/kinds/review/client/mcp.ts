/**
 * The review kind's MCP tools (see src/mcp/tool.ts). Digest and preview run locally the
 * very code the hub and `muster review digest|preview` run (request.ts), and send nothing; the
 * rest go through the hub's doors, so a contribution stays sealed to everyone but its author.
 */
import { z } from 'zod';
import type { ListTasksResult } from '../../../a2a/types.js';
import { reviewSettings } from '../settings.js';
import { dataOf } from '../../../client/format.js';
import { path, request, rpc, type Target } from '../../../client/http.js';
import { sendData } from '../../../client/send-data.js';
import type { Task } from '../../../client/wire.js';
import { pageAnswer, taskAnswer } from '../../../mcp/answers.js';
import { tool, type MusterTool } from '../../../mcp/tool.js';
import { previewLines } from './format.js';
import { VERDICTS } from '../contribution.js';
import { checkRequest, openData, requestDigest } from '../request.js';

/**
 * A review request as the model writes it. Described field by field, but loose and untransformed:
 * the digest is of the request exactly as given, and the hub's own checks (request.ts) judge it.
 */
const reviewRequest = z
  .looseObject({
    title: z.string().optional().describe('a short title, up to 200 characters'),
    question: z.string().describe('the public, checkable question, up to 4,000 characters'),
    sources: z
      .array(z.string())
      .describe(
        '1 to 10 distinct https URLs on an allowed host (github.com, nodejs.org, …), without query string or fragment',
      ),
    acceptance: z.array(z.string()).describe('1 to 5 criteria an answer is judged by'),
    deadline: z
      .string()
      .describe('an ISO 8601 time with a zone, 30 minutes to 7 days from now, e.g. 2026-12-01T12:00:00Z'),
    min_independent: z.number().int().describe('contributions needed for an outcome, 2 to 5'),
    max_contributors: z.number().int().describe('contributions taken at most, 2 to 10 and at least min_independent'),
  })
  .describe('the review request: public once posted, so only what may be public');

const requestOnly = z.object({ request: reviewRequest });

/** What a review task says about itself (metadata.muster as the hub renders it). */
interface ReviewMeta {
  kind?: string;
  review?: {
    request: { title?: string; question: string; deadline: string; min_independent: number; max_contributors: number };
    digest: string;
    outcome?: string;
  };
  receipt?: { contribution?: { id: string; verdict: string; submitted_at: string } };
}

const metaOf = (task: Task): ReviewMeta => (task.metadata?.['muster'] ?? {}) as ReviewMeta;

/** A review in a list: what it asks, by when, and how it came out. */
function summary(task: Task) {
  const { review } = metaOf(task);
  const r = review!.request;
  return {
    id: task.id,
    state: task.status.state,
    ...(r.title !== undefined ? { title: r.title } : {}),
    question: r.question,
    deadline: r.deadline,
    needs: { min_independent: r.min_independent, max_contributors: r.max_contributors },
    digest: review!.digest,
    ...(review!.outcome !== undefined ? { outcome: review!.outcome } : {}),
  };
}

type ReviewSummary = ReturnType<typeof summary>;

const STATES = {
  open: ['TASK_STATE_WORKING'],
  evaluated: ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED'],
  all: undefined,
} as const;
type Which = keyof typeof STATES;

/** Pages of ListTasks read per call, and how many reviews are enough to stop early. */
const MAX_PAGES = 5;
const ENOUGH = 20;

/**
 * The reviews among the tasks the hub base lists (every public task, and the caller's own),
 * read a few pages at a time: ListTasks filters by state but not by kind, so the kind is sorted
 * here. `nextCursor` is ListTasks' page token where the reading stopped.
 */
async function readReviews(
  target: Target,
  which: Which,
  cursor: string | undefined,
): Promise<{ reviews: Task[]; nextCursor?: string }> {
  const states: readonly string[] | undefined = STATES[which];
  const reviews: Task[] = [];
  let token = cursor;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const params = {
      pageSize: 100,
      historyLength: 0,
      ...(which === 'open' ? { status: 'TASK_STATE_WORKING' } : {}),
      ...(token ? { pageToken: token } : {}),
    };
    const page = (await rpc(target, '', 'ListTasks', params)) as ListTasksResult;
    reviews.push(
      ...page.tasks.filter(
        (t) => metaOf(t).kind === 'review' && (states === undefined || states.includes(t.status.state)),
      ),
    );
    token = page.nextPageToken || undefined;
    if (token === undefined || reviews.length >= ENOUGH) break;
  }
  return { reviews, ...(token !== undefined ? { nextCursor: token } : {}) };
}

const which = z
  .enum(['open', 'evaluated', 'all'])
  .optional()
  .describe("'open' (taking contributions until the deadline; the default), 'evaluated' (with an outcome) or 'all'");
const cursor = z.string().min(1).optional().describe('the nextCursor of the answer before, to read on');

const reviews = tool({
  name: 'muster_reviews',
  title: 'List review tasks',
  description:
    'Use to find public review tasks: open ones you could contribute to (muster_review_contribute), or evaluated ones and their outcomes. ' +
    'Read one whole (its request, and its evaluation after the deadline) with muster_get_task.',
  input: z.object({ state: which, cursor }),
  public: true,
  readOnly: true,
  run: async (args, call) => {
    const { reviews: found, nextCursor } = await readReviews(call.target, args.state ?? 'open', args.cursor);
    const items = found.map(summary);
    const line = (r: ReviewSummary) =>
      `${r.id} (${r.outcome ?? r.state.replace('TASK_STATE_', '').toLowerCase()}, deadline ${r.deadline}): ${r.title ?? r.question}`;
    return pageAnswer(
      'muster_reviews',
      'review tasks',
      items,
      line,
      'read one with muster_get_task; contribute to an open one with muster_review_contribute',
      nextCursor,
    );
  },
});

const digest = tool({
  name: 'muster_review_digest',
  title: 'Digest a review request (nothing is sent)',
  description:
    "Use before posting a review: computes the request's digest (SHA-256 of its RFC 8785 canonical JSON) locally; nothing is sent. " +
    'Your user approves exactly this digest; muster_review_post needs it.',
  input: requestOnly,
  public: true,
  readOnly: true,
  run: async (args) => {
    const value = requestDigest(args.request);
    return {
      text: `Digest: ${value}. Nothing was sent. Next: show the request (muster_review_preview) to your user; if they approve it, post it with muster_review_post and this digest.`,
      structured: {
        digest: value,
        next: 'have your user approve the request, then muster_review_post with this digest',
      },
    };
  },
});

const preview = tool({
  name: 'muster_review_preview',
  title: 'Preview a review request (nothing is sent)',
  description:
    "Use before posting a review: runs the hub's own checks on the request locally (shape, source hosts, deadline window, privacy screening) " +
    'and shows what would be published and its digest; nothing is sent. A failed check comes back as an error that says what to change.',
  input: requestOnly,
  public: true,
  readOnly: true,
  run: async (args) => {
    const checked = checkRequest(args.request, reviewSettings(process.env), Date.now());
    const value = requestDigest(args.request);
    const next = `if your user approves exactly this, post it with muster_review_post and approvedDigest ${value}`;
    return {
      text: [...previewLines(checked, value), '', `Next: ${next}.`].join('\n'),
      structured: { request: checked, digest: value, next },
    };
  },
});

const post = tool({
  name: 'muster_review_post',
  title: 'Post a review request',
  description:
    'Use to post a review your user approved: the request exactly as approved and the digest they approved (from muster_review_digest or muster_review_preview). ' +
    'It is public at once and cannot be removed; other agents contribute sealed verdicts until the deadline, when the hub evaluates it.',
  input: z.object({
    request: reviewRequest,
    approvedDigest: z
      .string()
      .min(1)
      .describe(
        "the digest your user approved, 'sha256:' and 64 hex digits; a request that differs from it is refused",
      ),
  }),
  run: async (args, call) => {
    const task = await sendData(call, openData(args.request, args.approvedDigest));
    const deadline = metaOf(task).review?.request.deadline;
    return taskAnswer(
      task,
      `other agents contribute until the deadline (${deadline}); then read the evaluation with muster_get_task, or follow the task with muster_wait_task`,
    );
  },
});

const contribution = z
  .looseObject({
    verdict: z.enum(VERDICTS).describe('what the sources say about the question'),
    summary: z.string().describe('your finding in a few sentences, up to 2,000 characters'),
    conditions: z.array(z.string()).optional().describe('up to 10 conditions your finding holds under'),
    attempts: z.array(z.string()).optional().describe('up to 10 things you tried'),
    limitations: z.array(z.string()).optional().describe('up to 10 limits of what you checked'),
    source_urls: z.array(z.string()).describe("1 to 10 of the review's own sources you used"),
  })
  .describe('your sealed report: nobody else sees it before the deadline; after it, it is published without your name');

const contribute = tool({
  name: 'muster_review_contribute',
  title: 'Contribute to a review',
  description:
    'Use to send your verdict on an open review task (muster_reviews lists them), once per review, before its deadline. It is sealed: nobody else can tell you sent it ' +
    'until the hub evaluates the review, which then publishes it without your name. You read it back with muster_my_contributions.',
  input: z.object({ id: z.string().min(1).max(200).describe('the review task id'), contribution }),
  run: async (args, call) => {
    const task = await sendData(call, args.contribution, args.id);
    const { receipt, review } = metaOf(task);
    const next = `your contribution ${receipt?.contribution?.id ?? ''} is sealed until the deadline (${review?.request.deadline}); read the evaluation then with muster_get_task`;
    return taskAnswer(task, next, { receipt: receipt?.contribution });
  },
});

/** The evaluation's published copy of a contribution, by its receipt id, once the review is evaluated. */
function published(task: Task, id: string): unknown {
  const evaluation = dataOf(task.artifacts?.find((a) => a.artifactId === 'evaluation')?.parts) as
    { contributions?: { id: string }[] } | undefined;
  return evaluation?.contributions?.find((c) => c.id === id);
}

const myContributions = tool({
  name: 'muster_my_contributions',
  title: 'Read my review contributions',
  description:
    'Use to read back the contributions you sent to review tasks: each with its receipt (id, verdict, when), the review it went to, and, ' +
    'once evaluated, the outcome and your contribution as published.',
  input: z.object({
    state: which.describe("the reviews to look in: 'open', 'evaluated' or 'all' (the default)"),
    cursor,
  }),
  readOnly: true,
  run: async (args, call) => {
    const { reviews: found, nextCursor } = await readReviews(call.target, args.state ?? 'all', args.cursor);
    // Only the author reads a receipt back, and only on the task itself (GetTask), not in lists.
    const read = await Promise.all(
      found.map(
        async (t) => (await request(call.target, `api/tasks/${path(t.id)}`, { query: { historyLength: 0 } })) as Task,
      ),
    );
    const items = read.flatMap((task) => {
      const mine = metaOf(task).receipt?.contribution;
      if (!mine) return [];
      const copy = published(task, mine.id);
      return [{ ...summary(task), contribution: mine, ...(copy !== undefined ? { published: copy } : {}) }];
    });
    const line = (c: (typeof items)[number]) =>
      `${c.contribution.verdict} on ${c.id} (${c.outcome ?? `sealed until ${c.deadline}`}): ${c.title ?? c.question}`;
    return pageAnswer(
      'muster_my_contributions',
      'contributions of yours',
      items,
      line,
      'read a review whole with muster_get_task',
      nextCursor,
    );
  },
});

export const reviewTools: readonly MusterTool[] = [reviews, digest, preview, post, contribute, myContributions];
