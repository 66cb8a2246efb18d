/**
 * The paths a task's writes say its work wrote (TaskWrite.wrote), as a suite every dialect runs:
 * `tasksThatWrote` finds the tasks of a context that wrote a path, latest write first, at most
 * `limit`, and nothing of another context or path; a write that names none keeps none, and a
 * path named twice in one write is kept once. Contexts carry a tag of each test's own.
 */
import { describe, expect, it } from 'vitest';
import type { Store, TaskWrite } from './store.js';
import { bump, newTask } from './task-writes.fixture.js';

const tagged = () => Math.random().toString(36).slice(2, 10);

export function taskPathsSuite(name: string, open: () => Promise<Store>): void {
  describe(`paths tasks wrote: ${name}`, () => {
    it('finds the tasks of a context that wrote a path, latest first, within the limit', async () => {
      const store = await open();
      const space = `space-${tagged()}`;
      const landed = async (at: number, paths: string[]): Promise<TaskWrite> => {
        const opened = newTask({ contextId: space, kind: 'intent', visibility: 'public' });
        await store.createTask(opened);
        const landing = bump(opened, { state: 'TASK_STATE_COMPLETED', updatedAt: at }, { wrote: paths });
        await store.updateTask(landing);
        return landing;
      };
      const older = await landed(2_000_000_000_000, ['src/a.ts', 'src/b.ts', 'src/a.ts']);
      const newer = await landed(2_000_000_000_500, ['src/a.ts']);
      const elsewhere = newTask({ contextId: `other-${tagged()}` });
      await store.createTask(elsewhere);
      await store.updateTask(bump(elsewhere, {}, { wrote: ['src/a.ts'] }));
      await store.createTask(newTask({ contextId: space }));

      expect(await store.tasksThatWrote(space, 'src/a.ts', 10)).toEqual([newer.record.id, older.record.id]);
      expect(await store.tasksThatWrote(space, 'src/a.ts', 1)).toEqual([newer.record.id]);
      expect(await store.tasksThatWrote(space, 'src/b.ts', 10)).toEqual([older.record.id]);
      expect(await store.tasksThatWrote(space, 'src/c.ts', 10)).toEqual([]);
      expect(await store.tasksThatWrote(elsewhere.record.contextId, 'src/a.ts', 10)).toEqual([elsewhere.record.id]);
      await store.close();
    });
  });
}
