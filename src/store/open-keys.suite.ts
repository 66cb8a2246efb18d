/**
 * Open keys (TaskRecord.openKey), as a suite every dialect runs: no two tasks that are not
 * terminal carry one key, whoever writes; a terminal task's key holds nothing; `openKeyHolder`
 * reads the task that holds a key; and works under one lock's name (underLock) run one at a time,
 * each reading what the one before it wrote. Keys and contexts carry a tag of each test's own, so
 * the suite also holds on a database other tests write to.
 */
import { describe, expect, it } from 'vitest';
import { StoreConflict, type Store, type TaskRecord, type TaskWrite } from './store.js';

const tagged = () => Math.random().toString(36).slice(2, 10);

function opening(over: Partial<TaskRecord> = {}): TaskWrite {
  const record: TaskRecord = {
    id: `task-${tagged()}`,
    kind: 'intent',
    contextId: 'keyed',
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
    events: [{ task: { id: record.id, contextId: record.contextId, status: { state: record.state, timestamp: '' } } }],
  };
}

/** The write after `w` that moves its task to `state`. */
function moved(w: TaskWrite, state: TaskRecord['state']): TaskWrite {
  const r = w.record;
  const record = { ...r, state, version: r.version + 1, lastSeq: r.lastSeq + 1, updatedAt: r.updatedAt + 1 };
  return {
    record,
    expectedVersion: r.version,
    newMessages: [],
    newArtifacts: [],
    events: [{ statusUpdate: { taskId: r.id, contextId: r.contextId, status: { state, timestamp: '' } } }],
  };
}

const refusedAs = (what: StoreConflict['what']) => expect.objectContaining({ name: 'StoreConflict', what });

export function openKeysSuite(name: string, open: () => Promise<Store>): void {
  describe(`open keys: ${name}`, () => {
    it('refuses a second open task with a key, writing nothing of it, and reads the holder by the key', async () => {
      const store = await open();
      const key = `k-${tagged()}`;
      const first = opening({ openKey: key });
      await store.createTask(first);
      expect((await store.getTask(first.record.id, { includeArtifacts: false }))!.record).toEqual(first.record);
      expect(await store.openKeyHolder(key)).toBe(first.record.id);
      expect(await store.openKeyHolder(`k-${tagged()}`)).toBeUndefined();

      const receipt = { scope: `s-${tagged()}`, key: 'm1', fingerprint: 'f', result: {} };
      const second = Object.assign(opening({ openKey: key }), { receipt });
      await expect(store.createTask(second)).rejects.toEqual(refusedAs('open-key'));
      expect(await store.getTask(second.record.id, { includeArtifacts: false })).toBeUndefined();
      expect(await store.getReceipt(receipt.scope, receipt.key)).toBeUndefined(); // so a retry is not answered a task that is not there
      // Tasks without a key, or with another, are not held back.
      await store.createTask(opening());
      await store.createTask(opening());
      await store.createTask(opening({ openKey: `k-${tagged()}` }));
      await store.close();
    });

    it("keeps the key through the task's open states; once it is terminal the key is free, and reopening it then is refused", async () => {
      const store = await open();
      const key = `k-${tagged()}`;
      const created = opening({ openKey: key });
      await store.createTask(created);
      const worked = moved(created, 'TASK_STATE_WORKING');
      await store.updateTask(worked);
      const released = moved(worked, 'TASK_STATE_SUBMITTED');
      await store.updateTask(released);
      expect(await store.openKeyHolder(key)).toBe(created.record.id);
      await expect(store.createTask(opening({ openKey: key }))).rejects.toEqual(refusedAs('open-key'));

      const landed = moved(released, 'TASK_STATE_COMPLETED');
      await store.updateTask(landed);
      expect(await store.openKeyHolder(key)).toBeUndefined();
      expect((await store.getTask(created.record.id, { includeArtifacts: false }))!.record.openKey).toBe(key); // kept as written
      const again = opening({ openKey: key });
      await store.createTask(again);
      expect(await store.openKeyHolder(key)).toBe(again.record.id);
      await expect(store.updateTask(moved(landed, 'TASK_STATE_WORKING'))).rejects.toEqual(refusedAs('open-key'));
      expect((await store.getTask(created.record.id, { includeArtifacts: false }))!.record.state).toBe(
        'TASK_STATE_COMPLETED',
      );
      await store.close();
    });

    it('of many creates with one key at once, exactly one stands', async () => {
      const store = await open();
      for (let round = 0; round < 5; round++) {
        const key = `k-${tagged()}`;
        const writes = Array.from({ length: 8 }, () => opening({ openKey: key }));
        const outcomes = await Promise.allSettled(writes.map((w) => store.createTask(w)));
        const stood = writes.filter((_, i) => outcomes[i]!.status === 'fulfilled');
        expect(stood).toHaveLength(1);
        for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toEqual(refusedAs('open-key'));
        expect(await store.openKeyHolder(key)).toBe(stood[0]!.record.id);
      }
      await store.close();
    });

    it('of many check-then-create works under one lock at once, each reads what the ones before it wrote', async () => {
      const store = await open();
      const context = `c-${tagged()}`;
      const scope = { anyOf: [{ contextId: { in: [context] } }] };
      // Each opens a task unless one is there: without the lock, every check would run before any write.
      const works = Array.from({ length: 8 }, () =>
        store.underLock(`lock-${context}`, async (tasks) => {
          const seen = await tasks.listTasks({ scope, limit: 10, includeArtifacts: false });
          if (seen.tasks.length > 0) return 'found';
          await tasks.createTask(opening({ contextId: context }));
          return 'opened';
        }),
      );
      expect((await Promise.all(works)).sort()).toEqual([
        'found',
        'found',
        'found',
        'found',
        'found',
        'found',
        'found',
        'opened',
      ]);
      expect((await store.listTasks({ scope, limit: 10, includeArtifacts: false })).tasks).toHaveLength(1);
      await store.close();
    });

    it('a work that fails frees the lock; on PostgreSQL nothing of its writes stands', async () => {
      const store = await open();
      const written = opening();
      const lock = `lock-${tagged()}`;
      const failed = store.underLock(lock, async (tasks) => {
        await tasks.createTask(written);
        throw new Error('the work failed');
      });
      await expect(failed).rejects.toThrow('the work failed');
      // SQLite's writes stand as they commit: its lock orders works, it is not a transaction.
      if (store.name === 'postgres')
        expect(await store.getTask(written.record.id, { includeArtifacts: false })).toBeUndefined();
      await expect(store.underLock(lock, async () => 'ran')).resolves.toBe('ran');
      await store.close();
    });
  });
}
