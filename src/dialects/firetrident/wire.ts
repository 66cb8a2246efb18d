/**
 * A task as the colony's clients read it: the hub's task (1.0 shapes) with `metadata.firetrident`
 * beside `metadata.muster`, its status saying what happened in the colony's words, and its Landing
 * carrying `landing`, the commit and each file with the link that says why it changed. Only
 * what the hub knows is told: nothing is made up to fill the seed's other fields.
 */
import type { Artifact, JsonObject, Task } from '../../a2a/types.js';
import { factsOf, intentUrl, statusSentence, statusWord, whyUrl, type LandingFacts } from './words.js';

const LANDING = 'Landing';

/** The Landing's facts as the intent kind wrote them (its data part), and its summary (its text). */
export function landingOf(task: Task): { facts: LandingFacts; summary: string; artifact: Artifact } | undefined {
  const artifact = task.artifacts?.find((a) => a.name === LANDING);
  if (!artifact) return undefined;
  const facts = (artifact.parts.find((p) => p.data !== undefined)?.data ?? {}) as LandingFacts;
  const summary = artifact.parts.find((p) => p.text !== undefined)?.text ?? '';
  return { facts, summary, artifact };
}

/** The Landing's data part at the colony: `landing` (the intent lands once: its id), the commit, the files with their why links. */
export function landingData(task: Task, colony: string, base: string): JsonObject | undefined {
  const landing = landingOf(task);
  if (!landing) return undefined;
  const { facts, summary } = landing;
  const files = (facts.files ?? []).map((f) =>
    Object.assign({ path: f.path, why: whyUrl(base, colony, f.path) }, f.why ? { note: f.why } : {}),
  );
  return Object.assign(
    { landing: task.id },
    facts.commit ? { commit: facts.commit } : {},
    facts.landedAt ? { landedAt: facts.landedAt } : {},
    { files },
    facts.worker ? { worker: facts.worker } : {},
    summary ? { summary } : {},
  );
}

function landingArtifact(task: Task, colony: string, base: string): Artifact | undefined {
  const data = landingData(task, colony, base);
  const landing = landingOf(task);
  if (!data || !landing) return undefined;
  const files = data['files'] as { path: string; why: string }[];
  const commit = landing.facts.commit ? ` in commit ${landing.facts.commit}` : '';
  const where =
    files.length === 0
      ? ''
      : `; read why it changed at ${files[0]!.why}${files.length > 1 ? ", and the other files' links in the data part" : ''}`;
  return {
    artifactId: landing.artifact.artifactId,
    name: LANDING,
    description: 'How this intent landed: its commit, the files the change wrote, and where to read why each changed.',
    parts: [
      {
        text: `Landed${commit} (landing ${task.id}), writing ${files.length} file${files.length === 1 ? '' : 's'}${where}. ${landing.summary}`.trim(),
      },
      { data, mediaType: 'application/json' },
    ],
  };
}

/** `metadata.firetrident`: the intent's own fields, its status word and its REST URL. */
export function fireFacts(task: Task, colony: string, base: string): JsonObject {
  const facts = factsOf(task);
  return Object.assign(
    {
      colony,
      intent: task.id,
      status: statusWord(task.status.state),
      title: facts.title ?? '',
      // The hub knows who declared: an agent (its handle), or the admin when none is named.
      source: facts.from ? 'agent' : 'admin',
      createdBy: facts.from ?? 'admin',
      url: intentUrl(base, colony, task.id),
    },
    facts.duplicateOf ? { duplicateOf: facts.duplicateOf } : {},
  );
}

/** The hub's task (1.0) as the colony's clients read it. */
export function fireTask(task: Task, colony: string, base: string): Task {
  const landing = landingOf(task);
  const text = statusSentence(task, colony, landing?.facts);
  const message = task.status.message
    ? Object.assign({}, task.status.message, { parts: [{ text }] })
    : {
        messageId: `status-${task.id}`,
        role: 'ROLE_AGENT' as const,
        parts: [{ text }],
        taskId: task.id,
        contextId: colony,
      };
  const out: Task = Object.assign({}, task, {
    status: Object.assign({}, task.status, { message }),
    metadata: Object.assign({}, task.metadata, { firetrident: fireFacts(task, colony, base) }),
  });
  if (task.artifacts) {
    const translated = landingArtifact(task, colony, base);
    out.artifacts = task.artifacts.map((a) => (a.name === LANDING && translated ? translated : a));
  }
  return out;
}
