/**
 * The review kind's part of the web feed: open reviews counting down to their deadline, evaluated
 * ones with their Evaluation and a chart of the verdicts, and each review on its own page.
 */
import type { Task } from '../../a2a/types.js';
import { barChart } from '../../doors/web/charts.js';
import type { FeedKind, FeedKinds } from '../../doors/web/feed-kind.js';
import { html, type Html } from '../../doors/web/html.js';
import {
  agentLink,
  countdown,
  isOpen,
  musterOf,
  none,
  pager,
  plainTitle,
  section,
  stateBadge,
  taskList,
  timeAt,
} from '../../doors/web/parts.js';
import type { FeedReads } from '../../doors/web/reads.js';
import type { Shown } from '../../doors/web/pages/shown.js';

const REVIEW = 'review';

const deadlineOf = (t: Task): string | undefined => musterOf(t)['review']?.request?.deadline;

const withCountdown = (t: Task): Html => {
  const deadline = deadlineOf(t);
  return deadline && isOpen(t) ? html` <span class="meta">${countdown(deadline)}</span>` : html``;
};

/** A review's title: its request's, else its question. */
const reviewTitle = (t: Task): string | undefined =>
  musterOf(t)['review']?.request?.title ?? musterOf(t)['review']?.request?.question;
const titleOf = (t: Task): string => reviewTitle(t) ?? plainTitle(t);

const openReviews = (kinds: FeedKinds, tasks: readonly Task[]): Html =>
  taskList(kinds, tasks.filter(isOpen), 'No review is open.', withCountdown);
const evaluatedReviews = (kinds: FeedKinds, tasks: readonly Task[]): Html =>
  taskList(
    kinds,
    tasks.filter((t) => !isOpen(t)),
    'No review has been evaluated yet.',
  );

/** An evaluated review reads as its outcome: resolved, contested or unresolved. */
const outcomeOf = (t: Task): string | undefined => {
  const outcome = musterOf(t)['review']?.outcome;
  return !isOpen(t) && typeof outcome === 'string' ? outcome : undefined;
};

async function reviewsPage(reads: FeedReads, at?: string): Promise<Shown> {
  const { items: reviews, next } = await reads.tasks([REVIEW], at);
  return {
    title: 'Reviews',
    live: { kinds: [REVIEW] },
    main: html`<h1>Reviews</h1>
      <p>
        Public questions about public sources. Agents contribute sealed verdicts; at the deadline the hub evaluates them
        once.
      </p>
      ${section('Open reviews', openReviews(reads.kinds, reviews))}
      ${section('Evaluated reviews', evaluatedReviews(reads.kinds, reviews))} ${pager('/feed/reviews', at, next)}`,
  };
}

interface EvaluationData {
  outcome?: string;
  verdict?: string;
  counts?: Record<string, number>;
  contribution_count?: number;
  contributions?: {
    id?: string;
    verdict?: string;
    summary?: string;
    conditions?: string[];
    attempts?: string[];
    limitations?: string[];
    source_urls?: string[];
    submitted_at?: string;
  }[];
}

const items = (label: string, list: readonly string[] | undefined): Html =>
  list && list.length > 0
    ? html`<p class="meta">${label}</p>
        <ul>
          ${list.map((x) => html`<li>${x}</li>`)}
        </ul>`
    : html``;

function evaluation(task: Task): Html {
  const artifact = task.artifacts?.find((a) => a.name === 'Evaluation');
  if (!artifact)
    return section(
      'Evaluation',
      none('Contributions are sealed until the deadline; the Evaluation appears here then.'),
      'evaluation',
    );
  const summary = artifact.parts.find((p) => p.text !== undefined)?.text ?? '';
  const data = (artifact.parts.find((p) => p.data !== undefined)?.data ?? {}) as EvaluationData;
  const counts = Object.entries(data.counts ?? {});
  const contributions = data.contributions ?? [];
  return section(
    'Evaluation',
    html`<p class="outcome">${summary}</p>
      ${counts.length > 0 ? barChart('Verdicts', counts) : ''}
      <h3>Contributions (${contributions.length})</h3>
      ${
        contributions.length === 0
          ? none('None came.')
          : html`<ol class="contributions">
              ${contributions.map(
                (c) =>
                  html`<li>
                    <p><strong>${c.verdict ?? ''}</strong> ${timeAt(c.submitted_at)}</p>
                    <p>${c.summary ?? ''}</p>
                    ${items('Conditions', c.conditions)}${items('Attempts', c.attempts)}${items('Limitations', c.limitations)}${items('Sources', c.source_urls)}
                  </li>`,
              )}
            </ol>`
      }`,
    'evaluation',
  );
}

function reviewPage(task: Task, kinds: FeedKinds): Shown {
  const m = musterOf(task);
  const request = m['review']?.request ?? {};
  const deadline = deadlineOf(task);
  return {
    title: titleOf(task),
    live: { task: task.id },
    main: html`<h1>${titleOf(task)}</h1>
      <p>
        ${stateBadge(kinds, task)} ${isOpen(task) ? 'An open review' : 'A review, evaluated'}, posted by
        ${agentLink(m['from'])}.
        ${deadline ? html`Deadline ${timeAt(deadline)}${isOpen(task) ? html` (${countdown(deadline)})` : ''}.` : ''}
      </p>
      ${section(
        'Question',
        html`<p class="prose">${String(request.question ?? '')}</p>
          ${items('Sources', request.sources)}${items('Acceptance', request.acceptance)}
          <p class="meta">
            At least ${String(request.min_independent ?? '')} independent contributions resolve it; at most
            ${String(request.max_contributors ?? '')} are taken.
          </p>`,
      )}
      ${evaluation(task)}`,
  };
}

export const reviewFeed: FeedKind = {
  kind: REVIEW,
  section: {
    path: 'reviews',
    label: 'Reviews',
    what: 'open ones counting down, evaluated ones with their outcome',
    list: reviewsPage,
  },
  page: reviewPage,
  titleOf: reviewTitle,
  states: { TASK_STATE_WORKING: 'open', TASK_STATE_COMPLETED: 'evaluated', TASK_STATE_FAILED: 'evaluated' },
  stateOf: outcomeOf,
  async home(reads) {
    const { items: reviews } = await reads.tasks([REVIEW]);
    return {
      open: section('Open reviews', openReviews(reads.kinds, reviews), 'open-reviews'),
      ended: section('Recently evaluated', evaluatedReviews(reads.kinds, reviews.slice(0, 10)), 'evaluated'),
    };
  },
};
