/**
 * Creating a task that carries an open key (Opening.openKey). Its kind's twin check read before
 * this write, so the same work opened meanwhile through another process is found only here: the
 * store refuses a second open task with the key (StoreConflict 'open-key'), and the create
 * answers the task that holds it instead.
 */
import { StoreConflict, type Store, type TaskCreated, type TaskWrite } from '../store/store.js';

/** Creates tried when the key's holder keeps ending between the refusal and the read of the key. */
const ATTEMPTS = 3;

/** The create's outcome, or the id of the open task that holds the write's open key. */
export async function createUnlessKeyHeld(store: Pick<Store, 'createTask' | 'openKeyHolder'>, write: TaskWrite): Promise<TaskCreated | { holder: string }> {
  const key = write.record.openKey;
  for (let n = 1; ; n++) {
    try {
      return await store.createTask(write);
    } catch (e) {
      if (!(e instanceof StoreConflict && e.what === 'open-key' && key !== undefined)) throw e;
      const holder = await store.openKeyHolder(key);
      if (holder !== undefined) return { holder };
      // The holder ended in between, freeing the key: nothing of this write was stored, so it is tried again.
      if (n >= ATTEMPTS) throw new StoreConflict('version', 'the open key kept changing hands');
    }
  }
}
