/**
 * Two things of the task contract kinds share, as a suite every dialect runs: a task's holder
 * and the end of its hold (TaskRecord.holder, heldUntil), and lists in rank order with their
 * keyset cursor (TaskQuery `order: 'rank'`). Contexts carry a tag of each test's own, so the
 * suite also holds on a database other tests write to.
 */
import { describe, expect, it } from 'vitest';
import { liveHolder, type Store, type TaskPage, type TaskRecord, type TaskWrite } from './store.js';
import { taskScopes } from '../hub/view.js';

const tagged = () => Math.random().toString(36).slice(2, 10);

function opening(contextId: string, over: Partial<TaskRecord> = {}): TaskWrite {
  const record: TaskRecord = {
    id: `task-${tagged()}`,
    kind: 'intent',
    contextId,
    sender: 'ann',
    visibility: 'public',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: 10,
    createdAt: 10,
    updatedAt: 10,
    messageCount: 0,
    artifactCount: 0,
    version: 1,
    lastSeq: 1,
    ...over,
  };
  return {
    record,
    newMessages: [],
    newArtifacts: [],
    events: [{ task: { id: record.id, contextId, status: { state: record.state, timestamp: '' } } }],
  };
}

/** The write after `w` that makes its record `over` (the version and the event log moved on by one). */
function next(w: TaskWrite, over: Partial<TaskRecord>): TaskWrite {
  const r = w.record;
  const record = { ...r, version: r.version + 1, lastSeq: r.lastSeq + 1, updatedAt: r.updatedAt + 1, ...over };
  return {
    record,
    expectedVersion: r.version,
    newMessages: [],
    newArtifacts: [],
    events: [
      { statusUpdate: { taskId: r.id, contextId: r.contextId, status: { state: record.state, timestamp: '' } } },
    ],
  };
}

const ids = (page: TaskPage) => page.tasks.map((t) => t.record.id);

export function holdsAndRanksSuite(
  name: string,
  open: () => Promise<{ store: Store; reopen: () => Promise<Store> }>,
): void {
  describe(`holds and ranks: ${name}`, () => {
    it("keeps a task's holder and the end of its hold as written: set, moved, cleared, through every read and a reopening", async () => {
      const { store, reopen } = await open();
      const space = `s-${tagged()}`;
      const read = async (s: Store, id: string) => (await s.getTask(id, { includeArtifacts: false }))?.record;
      const listed = async (s: Store) =>
        (await s.listTasks({ scope: taskScopes.space(space, ['intent']), limit: 5, includeArtifacts: false })).tasks[0]
          ?.record;
      const created = opening(space);
      await store.createTask(created);
      expect(await read(store, created.record.id)).not.toHaveProperty('holder');
      const held = next(created, { state: 'TASK_STATE_WORKING', holder: 'wes', heldUntil: 1_000 });
      await store.updateTask(held);
      expect(await read(store, created.record.id)).toEqual(held.record);
      expect(await listed(store)).toEqual(held.record);
      const moved = next(held, { holder: 'wyn', heldUntil: 2_000 });
      await store.updateTask(moved);
      await store.close();

      const again = await reopen();
      const kept = await read(again, created.record.id);
      expect(kept).toEqual(moved.record);
      expect([liveHolder(kept!, 1_999), liveHolder(kept!, 2_000)]).toEqual(['wyn', undefined]);
      const released = next(moved, { state: 'TASK_STATE_SUBMITTED', holder: undefined, heldUntil: undefined });
      await again.updateTask(released);
      const cleared = await read(again, created.record.id);
      expect(cleared).toEqual(released.record);
      expect(cleared).not.toHaveProperty('holder');
      expect(cleared).not.toHaveProperty('heldUntil');
      expect(await listed(again)).toEqual(released.record);
      await again.close();
    });

    it("lists the tasks a holder holds past a time, and nobody else's (the view's heldBy scope, TaskQuery.heldAfter)", async () => {
      const { store } = await open();
      const space = `s-${tagged()}`;
      const worker = `w-${tagged()}`;
      const write = async (over: Partial<TaskRecord>) => {
        const created = opening(space);
        await store.createTask(created);
        await store.updateTask(next(created, { state: 'TASK_STATE_WORKING', ...over }));
        return created.record.id;
      };
      const live = await write({ holder: worker, heldUntil: 5_000 });
      await write({ holder: worker, heldUntil: 3_000 }); // ran out before 4_000
      await write({ holder: `other-${tagged()}`, heldUntil: 5_000 });
      // Who landed it: the hub ends the hold at the landing, so a later time finds it held no longer.
      const landed = await write({ state: 'TASK_STATE_COMPLETED', holder: worker, heldUntil: 3_500 });
      const heldBy = (after: number) =>
        store.listTasks({
          scope: taskScopes.heldBy(worker, ['intent']),
          heldAfter: after,
          limit: 5,
          includeArtifacts: false,
        });
      expect(ids(await heldBy(4_000))).toEqual([live]);
      expect(ids(await heldBy(3_400)).sort()).toEqual([live, landed].sort());
      expect(
        (
          await store.listTasks({
            scope: taskScopes.heldBy(worker, ['review']),
            heldAfter: 0,
            limit: 5,
            includeArtifacts: false,
          })
        ).total,
      ).toBe(0);
      await store.close();
    });

    it('lists by rank: highest first, then oldest, in keyset pages that go on when the last task shown has left the list', async () => {
      const { store } = await open();
      const space = `s-${tagged()}`;
      const task = (rank: number, createdAt: number, state: TaskRecord['state'] = 'TASK_STATE_SUBMITTED') =>
        opening(space, { createdAt, updatedAt: 1_000 - createdAt, state, ...(rank ? { rank } : {}) });
      const [low, older2, newer2, first5, second5, unranked, working] = [
        task(1, 14),
        task(2, 10),
        task(2, 11),
        task(5, 12),
        task(5, 13),
        task(0, 9),
        task(9, 8, 'TASK_STATE_WORKING'),
      ];
      for (const w of [low, older2, newer2, first5, second5, unranked, working]) await store.createTask(w);
      const query = {
        scope: taskScopes.space(space, ['intent']),
        states: ['TASK_STATE_SUBMITTED'] as const,
        order: 'rank' as const,
        limit: 2,
        includeArtifacts: false,
      };
      const page1 = await store.listTasks(query);
      expect(ids(page1)).toEqual([first5.record.id, second5.record.id]);
      expect([page1.total, page1.hasMore]).toEqual([6, true]);
      // The last one shown is claimed before the next page is read: the cursor is its place, so nothing is skipped.
      await store.updateTask(next(second5, { state: 'TASK_STATE_WORKING' }));
      const page2 = await store.listTasks({ ...query, after: page1.tasks[1]!.record });
      expect(ids(page2)).toEqual([older2.record.id, newer2.record.id]);
      const page3 = await store.listTasks({ ...query, after: page2.tasks[1]!.record, limit: 5 });
      expect(ids(page3)).toEqual([low.record.id, unranked.record.id]);
      expect([page3.total, page3.hasMore]).toEqual([5, false]);
      // The rank is the row's own, kept through every write; the default order is still the latest update first.
      expect(page3.tasks.map((t) => t.record.rank)).toEqual([1, undefined]);
      const byUpdate = await store.listTasks({ ...query, order: 'updated', limit: 3 });
      expect(ids(byUpdate)).toEqual([unranked.record.id, older2.record.id, newer2.record.id]);
      await store.close();
    });
  });
}
