import type { Artifact, Message, TaskState } from '../../a2a/types.js';
import type { TaskEntry } from '../../store/store.js';
import { VERDICTS, type Contribution, type Verdict } from './contribution.js';
import { isoTime } from '../../wire/iso-time.js';

export type Outcome = 'resolved' | 'contested' | 'unresolved';

export interface Evaluation {
  state: TaskState;
  outcome: Outcome;
  artifact: Artifact;
  message: Message;
}

/** A contribution as stored: the report, its public id and when it came. */
export interface SealedContribution extends Contribution {
  id: string;
  submitted_at: string;
}

/**
 * The fixed rules, applied once at the deadline: fewer than `minIndependent` contributions
 * leave the question unresolved; differing verdicts are contested; agreeing ones resolve it.
 * The result summarises what participants reported; it certifies nothing.
 */
export function evaluate(entries: readonly TaskEntry[], minIndependent: number, now: number): Evaluation {
  const contributions = entries.map((e) => e.body as unknown as SealedContribution);
  const counts = Object.fromEntries(
    VERDICTS.map((v) => [v, contributions.filter((c) => c.verdict === v).length]),
  ) as Record<Verdict, number>;
  const verdicts = VERDICTS.filter((v) => counts[v] > 0);
  const outcome: Outcome =
    contributions.length < minIndependent ? 'unresolved' : verdicts.length > 1 ? 'contested' : 'resolved';
  const summary = describe(
    outcome,
    contributions.length,
    minIndependent,
    verdicts.map((v) => `${counts[v]} ${v}`).join(', '),
  );
  const data = {
    outcome,
    ...(outcome === 'resolved' ? { verdict: verdicts[0] } : {}),
    contribution_count: contributions.length,
    min_independent: minIndependent,
    counts,
    evaluated_at: isoTime(now),
    contributions, // public now; they never carried the contributor's identity
  };
  return {
    state: outcome === 'unresolved' ? 'TASK_STATE_FAILED' : 'TASK_STATE_COMPLETED',
    outcome,
    artifact: {
      artifactId: 'evaluation',
      name: 'Evaluation',
      description:
        'The outcome by the fixed rules, counts per verdict, and the contributions, public after the deadline.',
      parts: [{ text: summary }, { data, mediaType: 'application/json' }],
    },
    message: { messageId: `evaluation-${now}`, role: 'ROLE_AGENT', parts: [{ text: summary }] },
  };
}

/** The summary line; `tally` is the count of each verdict given, "2 source_supported, 1 source_unclear". */
function describe(outcome: Outcome, n: number, min: number, tally: string): string {
  if (outcome === 'unresolved')
    return `Unresolved: ${n} contribution(s), fewer than the ${min} needed.${tally ? ` (${tally})` : ''}`;
  if (outcome === 'contested') return `Contested: the ${n} contributions differ (${tally}).`;
  return `Resolved: all ${n} contributions agree (${tally}).`;
}
