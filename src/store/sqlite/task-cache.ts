import type { Artifact } from '../../a2a/types.js';
import type { GetOptions, StoredTask, TaskWrite } from '../store.js';

/**
 * Recently used tasks, kept in step with every committed write. It is valid because one hub
 * process owns its SQLite file (documented): nothing else writes behind its back. Bounded;
 * the least recently used task leaves first.
 */
/** Tasks with more messages than this are not cached. */
const LONG_HISTORY = 50;

export class TaskCache {
  private readonly tasks = new Map<string, StoredTask>();

  constructor(private readonly capacity = 10_000) {}

  /** A copy of the cached task shaped as `options` asks, or undefined on a miss. */
  get(id: string, options: GetOptions): StoredTask | undefined {
    const task = this.tasks.get(id);
    if (!task) return undefined;
    this.tasks.delete(id); // re-insert: Map order is recency order
    this.tasks.set(id, task);
    const keep = options.historyLength ?? task.history.length;
    return {
      record: task.record,
      history: keep > 0 ? task.history.slice(-keep) : [],
      artifacts: options.includeArtifacts ? [...task.artifacts] : [],
    };
  }

  /** Remembers a task read in full from the database. */
  remember(task: StoredTask): void {
    if (task.history.length > LONG_HISTORY) return; // long tasks are read from the file; the cache stays small
    this.tasks.set(task.record.id, task);
    if (this.tasks.size > this.capacity) this.tasks.delete(this.tasks.keys().next().value!);
  }

  /** Applies a committed write; a task not in the cache (or out of step) is simply dropped. */
  committed(kind: 'create' | 'update', write: TaskWrite): void {
    const id = write.record.id;
    if (kind === 'create') {
      this.remember({ record: write.record, history: [...write.newMessages], artifacts: [...write.newArtifacts] });
      return;
    }
    const task = this.tasks.get(id);
    if (!task || task.record.version !== write.expectedVersion) {
      this.tasks.delete(id);
      return;
    }
    const history = [...task.history, ...write.newMessages];
    if (history.length > LONG_HISTORY) this.tasks.delete(id);
    else this.tasks.set(id, { record: write.record, history, artifacts: mergeArtifacts(task.artifacts, write.newArtifacts) });
  }
}

function mergeArtifacts(current: readonly Artifact[], incoming: readonly Artifact[]): Artifact[] {
  const merged = [...current];
  for (const artifact of incoming) {
    const at = merged.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at >= 0) merged[at] = artifact;
    else merged.push(artifact);
  }
  return merged;
}
