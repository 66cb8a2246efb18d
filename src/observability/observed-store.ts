import type { LockedTasks, Store, TaskWrite } from '../store/store.js';
import type { HubMetrics } from './metrics.js';

/**
 * The store with every committed task write counted by kind and the state it wrote: creates and
 * updates, from every door and from the scheduler, all pass here. (A sealed entry changes no
 * state and is not counted.)
 */
export function observedStore(store: Store, metrics: HubMetrics): Store {
  const count = (write: TaskWrite) => metrics.taskWritten(write.record.kind, write.record.state);
  return Object.assign(Object.create(store) as Store, {
    createTask: async (write: TaskWrite) => {
      const created = await store.createTask(write);
      count(write);
      return created;
    },
    updateTask: async (write: TaskWrite) => {
      await store.updateTask(write);
      count(write);
    },
    // A create under a lock commits when the work ends: counted then, once.
    underLock: async <T>(key: string, work: (tasks: LockedTasks) => Promise<T>) => {
      let made: TaskWrite[] = [];
      const result = await store.underLock(key, (tasks) => {
        made = [];
        // Not a spread: a layer below may keep its methods on its prototype (cached-store.ts).
        return work({
          getTask: (id, options) => tasks.getTask(id, options),
          listTasks: (query) => tasks.listTasks(query),
          createTask: (write) => tasks.createTask(write).then((created) => (made.push(write), created)),
        });
      });
      made.forEach(count);
      return result;
    },
  });
}
