import type { Store, TaskWrite } from '../store/store.js';
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
  });
}
