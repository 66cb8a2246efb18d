/**
 * Review tasks as Cairn's clients read them. The task's own fields are in `metadata.cairn`
 * (the open task in Cairn's names, its digest, its outcome once evaluated, and the caller's
 * receipt as `contribution`), instead of `metadata.muster`: Cairn's public views name no agent,
 * and `metadata.muster.from` names the poster. The history is left out too (the request is in
 * `metadata.cairn`); the Evaluation artifact gives each contribution's conditions and
 * limitations back as the texts Cairn's reports carry. Nothing here adds to what the view
 * shows: it only leaves out and renames.
 */
import type { Artifact, JsonObject, Task } from '../../a2a/types.js';
import { asOpenTask } from '../../kinds/review/open-task.js';
import type { ReviewFacts } from '../../kinds/review/review.js';

/** The native review facts of a task as the view rendered it, or undefined for a task of another kind. */
export function reviewOf(task: Task): ReviewFacts | undefined {
  const muster = task.metadata?.['muster'] as { kind?: string; review?: ReviewFacts } | undefined;
  return muster?.kind === 'review' ? muster.review : undefined;
}

const receiptOf = (task: Task): JsonObject | undefined =>
  (task.metadata?.['muster'] as { receipt?: { contribution?: JsonObject } } | undefined)?.receipt?.contribution;

/** `metadata.cairn` of a review: what was posted, in Cairn's names, and what the hub added. */
function cairnFields(task: Task, review: ReviewFacts): JsonObject {
  const receipt = receiptOf(task);
  return Object.assign(
    { id: task.id },
    review.openTask ?? asOpenTask(review.request),
    { public_input_digest: review.digest },
    review.outcome === undefined ? {} : { outcome: review.outcome },
    receipt === undefined ? {} : { contribution: receipt },
  );
}

interface ContributionOut {
  conditions?: string[];
  limitations?: string[];
}

const joined = (list: string[] | undefined): string => (list ?? []).join('\n');

/** The Evaluation with each contribution's conditions and limitations as one text each. */
function evaluationOut(artifact: Artifact): Artifact {
  if (artifact.artifactId !== 'evaluation') return artifact;
  const parts = artifact.parts.map((part) => {
    const data = part.data as { contributions?: ContributionOut[] } | undefined;
    if (!data?.contributions) return part;
    const contributions = data.contributions.map((c) =>
      Object.assign({}, c, { conditions: joined(c.conditions), limitations: joined(c.limitations) }),
    );
    return Object.assign({}, part, { data: Object.assign({}, data, { contributions }) });
  });
  return Object.assign({}, artifact, { parts });
}

/** A review as Cairn shows it; `review` is reviewOf(task). */
export function cairnTask(task: Task, review: ReviewFacts): Task {
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (task.artifacts) out.artifacts = task.artifacts.map(evaluationOut);
  out.metadata = { cairn: cairnFields(task, review) };
  return out;
}
