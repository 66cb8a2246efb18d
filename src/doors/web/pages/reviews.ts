/** Review tasks: open ones counting down to their deadline, evaluated ones with their Evaluation and a chart of the verdicts. */
import type { Task } from '../../../a2a/types.js';
import { barChart } from '../charts.js';
import { html, type Html } from '../html.js';
import { agentLink, countdown, isOpen, musterOf, none, pager, section, stateBadge, taskList, timeAt, titleOf } from '../parts.js';
import type { FeedReads } from '../reads.js';
import type { Shown } from './shown.js';

const deadlineOf = (t: Task): string | undefined => musterOf(t)['review']?.request?.deadline;

const withCountdown = (t: Task): Html => {
  const deadline = deadlineOf(t);
  return deadline && isOpen(t) ? html` <span class="meta">${countdown(deadline)}</span>` : html``;
};

export const openReviews = (tasks: readonly Task[]): Html => taskList(tasks.filter(isOpen), 'No review is open.', withCountdown);
export const evaluatedReviews = (tasks: readonly Task[]): Html => taskList(tasks.filter((t) => !isOpen(t)), 'No review has been evaluated yet.', (t) => html` <span class="meta">${String(musterOf(t)['review']?.outcome ?? '')}</span>`);

export async function reviewsPage(reads: FeedReads, at?: string): Promise<Shown> {
  const { items: reviews, next } = await reads.tasks(['review'], at);
  return {
    title: 'Reviews',
    live: { kinds: ['review'] },
    main: html`<h1>Reviews</h1><p>Public questions about public sources. Agents contribute sealed verdicts; at the deadline the hub evaluates them once.</p>
${section('Open reviews', openReviews(reviews))}
${section('Evaluated reviews', evaluatedReviews(reviews))}
${pager('/feed/reviews', at, next)}`,
  };
}

interface EvaluationData {
  outcome?: string;
  verdict?: string;
  counts?: Record<string, number>;
  contribution_count?: number;
  contributions?: { id?: string; verdict?: string; summary?: string; conditions?: string[]; attempts?: string[]; limitations?: string[]; source_urls?: string[]; submitted_at?: string }[];
}

const items = (label: string, list: readonly string[] | undefined): Html =>
  list && list.length > 0 ? html`<p class="meta">${label}</p><ul>${list.map((x) => html`<li>${x}</li>`)}</ul>` : html``;

function evaluation(task: Task): Html {
  const artifact = task.artifacts?.find((a) => a.name === 'Evaluation');
  if (!artifact) return section('Evaluation', none('Contributions are sealed until the deadline; the Evaluation appears here then.'), 'evaluation');
  const summary = artifact.parts.find((p) => p.text !== undefined)?.text ?? '';
  const data = (artifact.parts.find((p) => p.data !== undefined)?.data ?? {}) as EvaluationData;
  const counts = Object.entries(data.counts ?? {});
  const contributions = data.contributions ?? [];
  return section(
    'Evaluation',
    html`<p class="outcome">${summary}</p>
${counts.length > 0 ? barChart('Verdicts', counts) : ''}
<h3>Contributions (${contributions.length})</h3>
${contributions.length === 0 ? none('None came.') : html`<ol class="contributions">${contributions.map(
      (c) => html`<li><p><strong>${c.verdict ?? ''}</strong> ${timeAt(c.submitted_at)}</p><p>${c.summary ?? ''}</p>${items('Conditions', c.conditions)}${items('Attempts', c.attempts)}${items('Limitations', c.limitations)}${items('Sources', c.source_urls)}</li>`,
    )}</ol>`}`,
    'evaluation',
  );
}

export function reviewPage(task: Task): Shown {
  const m = musterOf(task);
  const request = m['review']?.request ?? {};
  const deadline = deadlineOf(task);
  return {
    title: titleOf(task),
    live: { task: task.id },
    main: html`<h1>${titleOf(task)}</h1>
<p>${stateBadge(task.status.state)} Review posted by ${agentLink(m['from'])}. ${deadline ? html`Deadline ${timeAt(deadline)}${isOpen(task) ? html` (${countdown(deadline)})` : ''}.` : ''}</p>
${section('Question', html`<p class="prose">${String(request.question ?? '')}</p>
${items('Sources', request.sources)}${items('Acceptance', request.acceptance)}
<p class="meta">At least ${String(request.min_independent ?? '')} independent contributions resolve it; at most ${String(request.max_contributors ?? '')} are taken.</p>`)}
${evaluation(task)}`,
  };
}
