/**
 * How `muster get` shows the public kinds: a review task (its request, and after the deadline
 * its evaluation) and an open call (its question and answers), instead of their raw data parts.
 */
import { isJsonObject } from '../../a2a/types.js';
import type { Artifact, Part, Task } from './wire.js';

interface ReviewFacts {
  request: { title?: string; question: string; sources: string[]; acceptance: string[]; deadline: string; min_independent: number; max_contributors: number };
  digest: string;
  outcome?: string;
}

interface EvaluationData {
  outcome: string;
  verdict?: string;
  contribution_count: number;
  min_independent: number;
  counts: Record<string, number>;
  contributions: { id: string; verdict: string; summary: string; source_urls: string[]; conditions?: string[]; limitations?: string[] }[];
}

const dataOf = (parts: Part[] | undefined): unknown => parts?.find((p) => p.data !== undefined)?.data;
const listed = (label: string, items: string[]): string[] => (items.length > 0 ? [`  ${label}:`, ...items.map((i) => `    - ${i}`)] : []);

function renderEvaluation(artifact: Artifact | undefined): string[] {
  const data = dataOf(artifact?.parts) as EvaluationData | undefined;
  if (!artifact || !isJsonObject(data)) return ['', 'Evaluation: not yet (it comes at the deadline)'];
  const summary = artifact.parts.find((p) => typeof p.text === 'string')?.text;
  const counts = Object.entries(data.counts).map(([verdict, n]) => `${verdict} ${n}`).join(', ');
  return [
    '',
    `Evaluation: ${data.outcome}${data.verdict ? ` (${data.verdict})` : ''}`,
    ...(summary ? [`  ${summary}`] : []),
    `  counts: ${counts}`,
    ...listed(
      `contributions (${data.contributions.length})`,
      data.contributions.map((c) => `${c.verdict}: ${c.summary}${c.limitations?.length ? ` (limitations: ${c.limitations.join('; ')})` : ''}`),
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

function renderCall(task: Task, call: { title: string; question: string }): string[] {
  // The hub marks each answer (metadata.muster.answer), so a trimmed history (--history N) still shows them.
  const answers = (task.history ?? [])
    .filter((m) => isJsonObject(m.metadata?.['muster']) && (m.metadata['muster'] as Record<string, unknown>)['answer'] !== undefined)
    .map((m) => dataOf(m.parts))
    .filter((d): d is { body: string; stance?: string } => isJsonObject(d) && typeof d['body'] === 'string');
  return [
    '',
    `Call: ${call.title}`,
    `  question: ${call.question}`,
    '',
    `Answers (${answers.length}):`,
    ...(answers.length > 0 ? answers.map((a) => `  - ${a.stance ? `${a.stance}: ` : ''}${a.body}`) : ['  (none yet)']),
  ];
}

/**
 * The section a public kind shows in place of the history (and of the artifacts it explains),
 * or undefined for a task shown as messages.
 */
export function kindSection(task: Task): { lines: string[]; explains: Set<string> } | undefined {
  const muster = task.metadata?.['muster'];
  if (!isJsonObject(muster)) return undefined;
  if (isJsonObject(muster['review'])) return { lines: renderReview(task, muster['review'] as unknown as ReviewFacts), explains: new Set(['evaluation']) };
  if (isJsonObject(muster['call'])) return { lines: renderCall(task, muster['call'] as { title: string; question: string }), explains: new Set() };
  return undefined;
}
