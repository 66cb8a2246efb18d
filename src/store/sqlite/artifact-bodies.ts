import type { Artifact } from '../../a2a/types.js';
import type { Db } from './database.js';
import type { TaskWrite } from '../store.js';

/**
 * An artifact that a write stores exactly as one of its artifactUpdate events carries it is kept
 * once, in the event: its artifacts row holds `@<seq>`, the event's seq (no artifact's JSON starts
 * with `@`). Events are never rewritten or deleted, so the row reads the value it was written with,
 * and an event still holds an artifact's old value once the artifact is overwritten. In a WITHOUT
 * ROWID table a row over about 1,000 bytes spills into an overflow page of its own: a review's
 * evaluation written twice cost 1.3 of the 4.85 database pages each of 10,000 evaluations wrote.
 * Appended chunks are stored whole, as the merged artifact differs from every chunk.
 */
export function artifactBody(w: TaskWrite, artifact: Artifact): string {
  const at = w.events.findIndex((e) => 'artifactUpdate' in e && e.artifactUpdate.artifact === artifact);
  return at < 0 ? JSON.stringify(artifact) : `@${w.record.lastSeq - w.events.length + at + 1}`;
}

/** A task's artifacts in order, each from its row or from the event its row names. */
export function artifactReads(db: Db): (taskId: string) => Artifact[] {
  const rows = db.prepare(
    `SELECT a.body, e.body AS event FROM artifacts a
     LEFT JOIN events e ON a.body GLOB '@*' AND e.task_id = a.task_id AND e.seq = CAST(substr(a.body, 2) AS INTEGER)
     WHERE a.task_id = ? ORDER BY a.position, a.artifact_id`,
  );
  return (taskId) =>
    (rows.all(taskId) as { body: string; event: string | null }[]).map((r) =>
      r.event === null ? (JSON.parse(r.body) as Artifact) : (JSON.parse(r.event).artifactUpdate.artifact as Artifact),
    );
}
