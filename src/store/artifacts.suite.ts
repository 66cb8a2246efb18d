/**
 * A task's artifacts and the artifactUpdate events that carried them, as a suite every dialect
 * runs: each write made by changeWrite (as the hub makes them) reads back as the task it left,
 * artifacts whole and in order, and the event log keeps every value an artifact had, also after
 * the artifact was overwritten or had chunks appended.
 */
import { describe, expect, it } from 'vitest';
import type { Artifact, StreamResponse } from '../a2a/types.js';
import { changeWrite } from '../hub/changes.js';
import type { Change } from '../hub/kind.js';
import type { Store, StoredTask } from './store.js';
import { newTask } from './task-writes.fixture.js';

const artifact = (artifactId: string, text: string): Artifact => ({
  artifactId,
  name: artifactId,
  parts: [{ text }, { data: { text, n: text.length }, mediaType: 'application/json' }],
});

export function artifactsSuite(name: string, open: () => Promise<Store>): void {
  describe(`artifacts and their events: ${name}`, () => {
    it('reads back every artifact as written, and every event with the value it carried', async () => {
      const store = await open();
      const created = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(created);
      const logged: StreamResponse[] = [...created.events];
      let now = created.record.updatedAt;
      const write = async (change: Partial<Change>): Promise<void> => {
        const current = (await store.getTask(created.record.id, { includeArtifacts: true })) as StoredTask;
        const { write, task } = changeWrite(current, { messages: [], artifacts: [], ...change }, ++now);
        await store.updateTask(write);
        logged.push(...write.events);
        const read = await store.getTask(created.record.id, { includeArtifacts: true });
        expect(read?.artifacts).toEqual(task.artifacts);
        expect((await store.eventsAfter(created.record.id, 0, 100)).map((e) => e.event)).toEqual(logged);
      };
      const big = 'x'.repeat(3_000); // past a row's in-page limit on SQLite
      await write({ artifacts: [artifact('report', `first ${big}`), artifact('notes', 'n1')] });
      await write({ chunks: [{ artifact: artifact('report', 'more'), append: true, lastChunk: false }] });
      await write({ artifacts: [artifact('report', `second ${big}`)] });
      await write({ artifacts: [artifact('notes', 'n2'), artifact('notes', 'n3')], state: 'TASK_STATE_COMPLETED' });
      await write({ chunks: [{ artifact: artifact('log', 'whole chunk'), append: false, lastChunk: true }] });
      const final = await store.getTask(created.record.id, { includeArtifacts: true });
      expect(final?.artifacts.map((a) => [a.artifactId, (a.parts[0] as { text: string }).text])).toEqual([
        ['report', `second ${big}`],
        ['notes', 'n3'],
        ['log', 'whole chunk'],
      ]);
      await store.close();
    });
  });
}
