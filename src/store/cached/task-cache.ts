import { LRUCache } from 'lru-cache';
import type { Artifact } from '../../a2a/types.js';
import type { GetOptions, StoredTask, TaskWrite } from '../store.js';

/** Tasks with more messages than this are not cached. */
const LONG_HISTORY = 50;

/**
 * Recently used tasks, kept in step with every committed write. It is valid only over an
 * exclusive store (see cached-store.ts): nothing else writes behind its back. Bounded;
 * the least recently used task leaves first. (An LRU built on a Map's delete-and-set costs
 * ~24 us per hit once the Map is full: V8 rehashes the whole table on nearly every set.)
 */
export class TaskCache {
  private readonly tasks: LRUCache<string, StoredTask>;

  constructor(capacity = 10_000) {
    this.tasks = new LRUCache({ max: capacity });
  }

  /** A copy of the cached task shaped as `options` asks, or undefined on a miss. */
  get(id: string, options: GetOptions): StoredTask | undefined {
    const task = this.tasks.get(id);
    return task && TaskCache.shape(task, options);
  }

  /** A copy of a whole task, shaped as `options` asks. */
  static shape(task: StoredTask, options: GetOptions): StoredTask {
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
  }

  /** Applies a committed write; a task not in the cache (or out of step) is simply dropped. */
  committed(kind: 'create' | 'update', write: TaskWrite): void {
    const id = write.record.id;
    if (kind === 'create') {
      this.remember({ record: write.record, history: [...write.newMessages], artifacts: [...write.newArtifacts] });
      return;
    }
    const task = this.tasks.peek(id);
    if (!task || task.record.version !== write.expectedVersion) {
      this.tasks.delete(id);
      return;
    }
    const history = [...task.history, ...write.newMessages];
    if (history.length > LONG_HISTORY) this.tasks.delete(id);
    else
      this.tasks.set(id, {
        record: write.record,
        history,
        artifacts: mergeArtifacts(task.artifacts, write.newArtifacts),
      });
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
