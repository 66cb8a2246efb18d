import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../sqlite/sqlite-store.js';
import type { Store } from '../store.js';
import { newTask } from '../task-writes.fixture.js';
import { cached } from './cached-store.js';

const freshStore = () => openSqliteStore(join(mkdtempSync(join(tmpdir(), 'muster-cached-')), 'store.db'));
const hook = (taskId: string, id: string) => ({ taskId, id, owner: 'a', url: 'https://x.example/hook', createdAt: 1 });

/** The store with one of its per-task reads counted as it passes through to the file. */
function counting(file: Store, read: 'entries' | 'listPushConfigs') {
  const seen = { reads: 0 };
  const store: Store = Object.assign(Object.create(file) as Store, {
    [read]: (taskId: string) => {
      seen.reads++;
      return file[read](taskId);
    },
  });
  return { store, seen };
}

describe('the cache layer: entries', () => {
  it("keeps a task's entries as written, in order, as the database reads them", async () => {
    const file = freshStore();
    const { store: counted, seen } = counting(file, 'entries');
    const store = cached(counted);
    const created = Object.assign(newTask({ state: 'TASK_STATE_WORKING' }), { dueAt: 9 }); // as a review opens
    await store.createTask(created);
    const taskId = created.record.id;
    const sealed = (author: string) => ({
      entry: { taskId, author, id: `e-${author}`, body: { verdict: author, note: undefined }, createdAt: 5 },
      whileState: 'TASK_STATE_WORKING' as const,
      max: 5,
    });
    await store.addEntry(sealed('a'));
    expect((await store.entries(taskId)).map((e) => e.author)).toEqual(['a']);
    expect(seen.reads).toBe(0); // kept since the task opened with its due work
    await expect(store.addEntry(sealed('a'))).rejects.toMatchObject({ what: 'entry-exists' });
    await store.addEntry(sealed('b'));
    expect((await store.entries(taskId)).map((e) => e.author)).toEqual(['a', 'b']);
    expect(seen.reads).toBe(1); // after the refusal, read again once

    await store.addEntry(sealed('c'));
    expect(await store.entries(taskId)).toStrictEqual(await file.entries(taskId)); // each body as its JSON reads back
    expect((await store.entries(taskId)).map((e) => e.author)).toEqual(['a', 'b', 'c']);
    expect(seen.reads).toBe(1);

    const direct = newTask(); // no due work: nothing kept for it, read when asked
    await store.createTask(direct);
    expect(await store.entries(direct.record.id)).toEqual([]);
    expect(seen.reads).toBe(2);
    await store.close();
  });
});

describe('the cache layer: push configs', () => {
  it('knows a task it created has none, reads one that has some once, and follows puts and deletes', async () => {
    const file = freshStore();
    const { store: counted, seen } = counting(file, 'listPushConfigs');
    const store = cached(counted);
    const created = newTask();
    await store.createTask(created);
    const { record } = created;
    expect(await store.listPushConfigs(record.id)).toEqual([]);
    expect(seen.reads).toBe(0);

    await store.putPushConfig(hook(record.id, 'c1'), 5);
    expect((await store.listPushConfigs(record.id)).map((c) => c.id)).toEqual(['c1']);
    expect((await store.listPushConfigs(record.id)).map((c) => c.id)).toEqual(['c1']);
    expect(seen.reads).toBe(1);

    await store.deletePushConfig(record.id, 'c1');
    expect(await store.listPushConfigs(record.id)).toEqual([]);
    expect(seen.reads).toBe(2);
    await store.close();
  });

  it('does not keep what a read found when a put landed before the read came back', async () => {
    const file = freshStore();
    const created = newTask();
    await file.createTask(created); // written before the layer: unknown to it
    const { record } = created;
    // The read is taken at once and answered late, as one queued behind other work would be.
    const slow: Store = Object.assign(Object.create(file) as Store, {
      listPushConfigs: async (taskId: string) => {
        const configs = await file.listPushConfigs(taskId);
        await new Promise((resolve) => setTimeout(resolve, 20));
        return configs;
      },
    });
    const store = cached(slow);
    const reading = store.listPushConfigs(record.id);
    await store.putPushConfig(hook(record.id, 'c1'), 5);
    expect(await reading).toEqual([]); // taken before the put
    expect((await store.listPushConfigs(record.id)).map((c) => c.id)).toEqual(['c1']);
    await store.close();
  });
});
