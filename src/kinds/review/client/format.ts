/**
 * How `muster get` shows a review task: its request and, after the deadline, its evaluation,
 * instead of its raw data parts. Like the commands (cli.ts), this imports only from the client
 * (src/client/) and the A2A types.
 */
import { isJsonObject } from '../../../a2a/types.js';
import { dataOf, type TaskSection } from '../../../client/format.js';
import type { Artifact, Task } from '../../../client/wire.js';

interface ReviewFacts {
  request: {
    title?: string;
    question: string;
    sources: string[];
    acceptance: string[];
    deadline: string;
    min_independent: number;
    max_contributors: number;
  };
  digest: string;
  outcome?: string;
}

interface EvaluationData {
  outcome: string;
  verdict?: string;
  contribution_count: number;
  min_independent: number;
  counts: Record<string, number>;
  contributions: {
    id: string;
    verdict: string;
    summary: string;
    source_urls: string[];
    conditions?: string[];
    limitations?: string[];
  }[];
}

const listed = (label: string, items: string[]): string[] =>
  items.length > 0 ? [`  ${label}:`, ...items.map((i) => `    - ${i}`)] : [];

function renderEvaluation(artifact: Artifact | undefined): string[] {
  const data = dataOf(artifact?.parts) as EvaluationData | undefined;
  if (!artifact || !isJsonObject(data)) return ['', 'Evaluation: not yet (it comes at the deadline)'];
  const summary = artifact.parts.find((p) => typeof p.text === 'string')?.text;
  const counts = Object.entries(data.counts)
    .map(([verdict, n]) => `${verdict} ${n}`)
    .join(', ');
  return [
    '',
    `Evaluation: ${data.outcome}${data.verdict ? ` (${data.verdict})` : ''}`,
    ...(summary ? [`  ${summary}`] : []),
    `  counts: ${counts}`,
    ...listed(
      `contributions (${data.contributions.length})`,
      data.contributions.map(
        (c) =>
          `${c.verdict}: ${c.summary}${c.limitations?.length ? ` (limitations: ${c.limitations.join('; ')})` : ''}`,
      ),
    ),
  ];
}

function renderReview(task: Task, review: ReviewFacts): string[] {
  const r = review.request;
  return [
    '',
    `Review: ${r.title ?? '(untitled)'}`,
    `  question: ${r.question}`,
    ...listed('sources', r.sources),
    ...listed('acceptance', r.acceptance),
    `  deadline: ${r.deadline}`,
    `  needs:    ${r.min_independent} independent contributions (at most ${r.max_contributors})`,
    `  digest:   ${review.digest}`,
    ...renderEvaluation(task.artifacts?.find((a) => a.artifactId === 'evaluation')),
  ];
}

/** A review task's section (it explains the evaluation artifact), or undefined for any other task. */
export function reviewSection(task: Task): TaskSection | undefined {
  const muster = task.metadata?.['muster'];
  if (!isJsonObject(muster) || !isJsonObject(muster['review'])) return undefined;
  return { lines: renderReview(task, muster['review'] as unknown as ReviewFacts), explains: new Set(['evaluation']) };
}

/** What a review request publishes, as `review preview` and muster_review_preview show it (nothing was sent). */
export function previewLines(r: ReviewFacts['request'], digest: string): string[] {
  return [
    'Preview (nothing was sent): this is what the hub will publish.',
    ...(r.title ? [`title:     ${r.title}`] : []),
    `question:  ${r.question}`,
    'sources:',
    ...r.sources.map((s) => `  - ${s}`),
    'acceptance:',
    ...r.acceptance.map((a) => `  - ${a}`),
    `deadline:  ${r.deadline}`,
    `needs:     ${r.min_independent} independent contributions (at most ${r.max_contributors})`,
    `digest:    ${digest}`,
  ];
}
