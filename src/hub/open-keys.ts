/**
 * Creating a task from its kind's Opening: under the kind's lock with its twin check made there
 * (Opening.underLock), and with its open key (Opening.openKey). A lock makes the check and the
 * write one step across processes; an open key, without a lock, still catches the exact same work
 * opened at the same moment: the store refuses a second open task with the key (StoreConflict
 * 'open-key'), and the create answers the task that holds it instead.
 */
import { StoreConflict, type LockedTasks, type Store, type TaskCreated, type TaskWrite } from '../store/store.js';
import type { LockedReads, Opening, Twin } from './kind.js';

/** Creates tried when the key's holder keeps ending between the refusal and the read of the key. */
const ATTEMPTS = 3;

/** What a create came to: written; or a twin found under the lock; or the id of the open task that holds the write's open key. */
export type Created = TaskCreated | Twin | { holder: string };

export function createOpening(
  store: Pick<Store, 'createTask' | 'openKeyHolder' | 'underLock'>,
  opening: Opening,
  write: TaskWrite,
  readsOver: (tasks: LockedTasks) => LockedReads,
): Promise<Created> {
  const guard = opening.underLock;
  const attempt = guard
    ? () =>
        store.underLock(
          guard.key,
          async (tasks): Promise<TaskCreated | Twin> =>
            (await guard.twinOf?.(readsOver(tasks))) ?? tasks.createTask(write),
        )
    : () => store.createTask(write);
  return unlessKeyHeld(store, write.record.openKey, attempt);
}

/** The attempt's outcome, or the id of the open task that holds `key` when the store refused it for that. */
async function unlessKeyHeld<T>(
  store: Pick<Store, 'openKeyHolder'>,
  key: string | undefined,
  attempt: () => Promise<T>,
): Promise<T | { holder: string }> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof StoreConflict && e.what === 'open-key' && key !== undefined)) throw e;
      const holder = await store.openKeyHolder(key);
      if (holder !== undefined) return { holder };
      // The holder ended in between, freeing the key: nothing of this write was stored, so it is tried again.
      if (n >= ATTEMPTS) throw new StoreConflict('version', 'the open key kept changing hands');
    }
  }
}
